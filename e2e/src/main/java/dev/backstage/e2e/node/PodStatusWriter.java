package dev.backstage.e2e.node;

import dev.backstage.e2e.kubelet.ChildJvmPod;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Pod's status as the kubelet reports it: phase, the five conditions (each keeping its transition time while it
 * holds), the container's state (waiting with a reason, running, or terminated) and its last state, restarts, IPs.
 * Written only when it changed; a failed write is retried on the next tick.
 */
final class PodStatusWriter {
    private static final Logger LOG = LoggerFactory.getLogger(PodStatusWriter.class);

    private final KubernetesClient client;
    private final KnownImages images;

    PodStatusWriter(KubernetesClient client, KnownImages images) {
        this.client = client;
        this.images = images;
    }

    void write(Pod pod, PodState state, Container container) {
        ChildJvmPod process = state.container;
        boolean running = process != null && process.alive();
        String phase = running
                ? "Running"
                : state.finished
                        ? (state.lastTerminated != null
                                        && state.lastTerminated
                                                        .getState()
                                                        .getTerminated()
                                                        .getExitCode()
                                                == 0
                                ? "Succeeded"
                                : "Failed")
                        : state.restarts > 0 ? "Running" : "Pending";
        boolean ready = running && state.ready;
        ContainerStatusBuilder cs = new ContainerStatusBuilder()
                .withName(container.getName())
                .withImage(container.getImage())
                .withImageID(images.resolve(container.getImage())
                        .map(i -> NodeAgent.CONTAINER_ID_SCHEME + i.name())
                        .orElse(""))
                .withReady(ready)
                .withStarted(running && state.started)
                .withRestartCount(state.restarts);
        if (running) {
            cs.withContainerID(NodeAgent.CONTAINER_ID_SCHEME + process.pid())
                    .withState(new ContainerStateBuilder()
                            .withNewRunning()
                            .withStartedAt(PodEvents.time(state.startedAt))
                            .endRunning()
                            .build());
        } else if (state.finished && state.lastTerminated != null) {
            cs.withState(state.lastTerminated.getState());
        } else {
            cs.withState(new ContainerStateBuilder()
                    .withNewWaiting()
                    .withReason(state.waitingReason)
                    .withMessage(state.waitingMessage)
                    .endWaiting()
                    .build());
        }
        if (state.lastTerminated != null && !state.finished) {
            cs.withLastState(state.lastTerminated.getState());
        }
        List<PodCondition> conditions = new ArrayList<>();
        conditions.add(condition(pod, "PodReadyToStartContainers", true));
        conditions.add(condition(pod, "Initialized", true));
        conditions.add(condition(pod, "Ready", ready));
        conditions.add(condition(pod, "ContainersReady", ready));
        conditions.add(condition(pod, "PodScheduled", true));
        PodStatus status = new PodStatusBuilder()
                .withPhase(phase)
                .withConditions(conditions)
                .withHostIP(NodeAgent.HOST_IP)
                .addNewHostIP(NodeAgent.HOST_IP)
                .withPodIP(running ? NodeAgent.HOST_IP : null)
                .withPodIPs(running ? List.of(new PodIP(NodeAgent.HOST_IP)) : null)
                .withStartTime(PodEvents.time(state.startTime))
                .withContainerStatuses(cs.build())
                .withQosClass(pod.getStatus() == null ? null : pod.getStatus().getQosClass())
                .build();
        String json = Serialization.asJson(status);
        if (json.equals(state.lastStatusJson)) {
            return;
        }
        try {
            client.pods().inNamespace(state.namespace).withName(state.name).editStatus(p -> {
                p.setStatus(status);
                return p;
            });
            state.lastStatusJson = json;
        } catch (KubernetesClientException e) {
            LOG.debug("status of {} not written ({}); next tick retries", state.name, e.getCode());
        }
    }

    /** A condition that keeps its transition time while its status does not change. */
    private static PodCondition condition(Pod pod, String type, boolean value) {
        String status = value ? "True" : "False";
        String since = pod.getStatus() == null || pod.getStatus().getConditions() == null
                ? null
                : pod.getStatus().getConditions().stream()
                        .filter(c -> type.equals(c.getType()) && status.equals(c.getStatus()))
                        .map(PodCondition::getLastTransitionTime)
                        .filter(Objects::nonNull)
                        .findFirst()
                        .orElse(null);
        return new PodConditionBuilder()
                .withType(type)
                .withStatus(status)
                .withLastTransitionTime(since == null ? PodEvents.now() : since)
                .build();
    }
}
