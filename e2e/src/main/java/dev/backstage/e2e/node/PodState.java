package dev.backstage.e2e.node;

import dev.backstage.e2e.kubelet.ChildJvmPod;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * What the node knows of one pod bound to it, and its one container: the process, its ports, its probe counters,
 * restarts and back-off, and the last status written. The agent's loop, the process starter, the probes and the
 * status writer share it; the volatile fields are written by one and read by the others.
 */
final class PodState {
    final String uid;
    final String namespace;
    final String name;
    final Instant startTime = Instant.now();
    volatile ChildJvmPod container;
    volatile Map<Integer, Integer> ports = Map.of();
    volatile Instant startedAt;
    volatile boolean ready;
    volatile boolean started;
    volatile boolean terminating;
    volatile boolean finished;
    volatile String waitingReason = "ContainerCreating";
    volatile String waitingMessage;
    volatile ContainerStatus lastTerminated;
    volatile int restarts;
    volatile long notBeforeNanos;
    volatile boolean probing;
    final Map<String, Long> nextProbeNanos = new HashMap<>();
    final Map<String, Integer> failures = new HashMap<>();
    final Map<String, Integer> successes = new HashMap<>();
    String lastStatusJson;
    boolean warnedImage;
    String lastConfigError;

    PodState(Pod pod) {
        this.uid = pod.getMetadata().getUid();
        this.namespace = pod.getMetadata().getNamespace();
        this.name = pod.getMetadata().getName();
    }
}
