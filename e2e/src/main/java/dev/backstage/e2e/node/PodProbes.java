package dev.backstage.e2e.node;

import dev.backstage.e2e.kubelet.ChildJvmPod;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Probe;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A container's startup, liveness and readiness probes, as the kubelet runs them: each on its own period after its
 * initial delay, HTTP GET or TCP against the container's local port; a startup or liveness probe past its failure
 * threshold restarts the container, readiness sets the Pod's Ready. Exec probes cannot run here and count as
 * passing.
 */
final class PodProbes {
    private final PodEvents events;

    PodProbes(PodEvents events) {
        this.events = events;
    }

    void probe(Pod pod, PodState state, Container container) {
        ChildJvmPod process = state.container;
        if (process == null || !process.alive()) {
            return;
        }
        if (!state.started) {
            Boolean ok = run("startup", container.getStartupProbe(), container, state);
            if (ok == null) {
                return;
            }
            if (ok) {
                state.started = true;
            } else if (state.failures.getOrDefault("startup", 0) >= threshold(container.getStartupProbe())) {
                unhealthy(pod, process, "Startup probe failed");
            }
            return;
        }
        Boolean live = run("liveness", container.getLivenessProbe(), container, state);
        if (Boolean.FALSE.equals(live)
                && state.failures.getOrDefault("liveness", 0) >= threshold(container.getLivenessProbe())) {
            unhealthy(pod, process, "Liveness probe failed");
            return;
        }
        if (container.getReadinessProbe() == null) {
            state.ready = true;
            return;
        }
        Boolean ready = run("readiness", container.getReadinessProbe(), container, state);
        if (Boolean.TRUE.equals(ready)) {
            state.ready = true;
        } else if (Boolean.FALSE.equals(ready)
                && state.failures.getOrDefault("readiness", 0) >= threshold(container.getReadinessProbe())) {
            state.ready = false;
        }
    }

    private void unhealthy(Pod pod, ChildJvmPod process, String what) {
        events.event(pod, "Warning", "Unhealthy", what + "; restarting the container");
        long grace = Objects.requireNonNullElse(pod.getSpec().getTerminationGracePeriodSeconds(), 30L);
        process.terminate(Duration.ofSeconds(grace));
    }

    private static int threshold(Probe probe) {
        return probe == null || probe.getFailureThreshold() == null ? 3 : probe.getFailureThreshold();
    }

    /** Runs a due probe: true/false, or null when none is due (or the probe is not configured: true). */
    private static Boolean run(String kind, Probe probe, Container container, PodState state) {
        if (probe == null) {
            return true;
        }
        long now = System.nanoTime();
        Long next = state.nextProbeNanos.get(kind);
        if (next == null) {
            next = state.startedAt == null
                    ? now
                    : now + TimeUnit.SECONDS.toNanos(Objects.requireNonNullElse(probe.getInitialDelaySeconds(), 0));
            state.nextProbeNanos.put(kind, next);
        }
        if (now < next) {
            return null;
        }
        state.nextProbeNanos.put(
                kind, now + TimeUnit.SECONDS.toNanos(Objects.requireNonNullElse(probe.getPeriodSeconds(), 10)));
        boolean ok;
        if (probe.getHttpGet() != null) {
            int port = localPort(container, probe.getHttpGet().getPort(), state);
            ok = ChildJvmPod.httpProbe(
                    port,
                    Objects.requireNonNullElse(probe.getHttpGet().getPath(), "/"),
                    Duration.ofSeconds(Objects.requireNonNullElse(probe.getTimeoutSeconds(), 1)));
        } else if (probe.getTcpSocket() != null) {
            int port = localPort(container, probe.getTcpSocket().getPort(), state);
            try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
                ok = true;
            } catch (IOException e) {
                ok = false;
            }
        } else {
            ok = true; // exec probes cannot run here: counted as passing, said in the README
        }
        if (ok) {
            state.failures.put(kind, 0);
        } else {
            state.failures.merge(kind, 1, Integer::sum);
        }
        return ok;
    }

    /** The local port of a container port given by number or name. */
    static int localPort(Container container, IntOrString port, PodState state) {
        int containerPort;
        if (port.getIntVal() != null) {
            containerPort = port.getIntVal();
        } else {
            containerPort = (container.getPorts() == null ? List.<ContainerPort>of() : container.getPorts())
                    .stream()
                            .filter(p -> port.getStrVal().equals(p.getName()))
                            .map(ContainerPort::getContainerPort)
                            .findFirst()
                            .orElse(-1);
        }
        return state.ports.getOrDefault(containerPort, containerPort);
    }
}
