package dev.backstage.e2e.bench;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;

/**
 * What one side of {@link KedaComparisonBenchmark} costs and how it moved, from the API server every
 * {@link #PERIOD_MS}: the pool's pods that exist (created, not yet gone: a terminating pod still holds its
 * resources) integrated over time as replica-seconds; the Deployment's {@code spec.replicas} and every change of it
 * (a scale event, whichever controller made it); the ready pods.
 */
final class PoolSampler {
    static final long PERIOD_MS = 500;

    private final KubernetesClient client;
    private final String namespace;
    private final String pool;
    private double replicaSeconds;
    private int scaleEvents;
    private int desired = -1;
    private int pods;
    private int ready;
    private int maxPods;
    private int startPods;

    PoolSampler(KubernetesClient client, String namespace, String pool) {
        this.client = client;
        this.namespace = namespace;
        this.pool = pool;
    }

    /** One sample; {@code seconds} since the previous one is charged at the pod count seen now. */
    void sample(double seconds) {
        Deployment d = client.apps()
                .deployments()
                .inNamespace(namespace)
                .withName(pool)
                .get();
        int now = d == null || d.getSpec().getReplicas() == null
                ? -1
                : d.getSpec().getReplicas();
        if (desired >= 0 && now >= 0 && now != desired) {
            scaleEvents++;
            System.out.printf("  %s desired %d -> %d%s%n", pool, desired, now, reason());
        }
        if (now >= 0) {
            desired = now;
        }
        List<Pod> list = client.pods()
                .inNamespace(namespace)
                .withLabel("app.kubernetes.io/instance", pool)
                .list()
                .getItems();
        pods = (int) list.stream()
                .filter(p -> !"Succeeded".equals(p.getStatus().getPhase())
                        && !"Failed".equals(p.getStatus().getPhase()))
                .count();
        ready = (int) list.stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null
                        && p.getStatus().getConditions().stream()
                                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus())))
                .count();
        maxPods = Math.max(maxPods, pods);
        replicaSeconds += pods * seconds;
    }

    /**
     * Why the pool's controller moved, when it says: a {@code BackstageWorkerPool} of that name records it in
     * {@code status.lastScaleReason}; KEDA's HPA keeps no such field, so its moves print without one.
     */
    private String reason() {
        GenericKubernetesResource bwp = client.genericKubernetesResources(
                        "backstage.dev/v1alpha1", "BackstageWorkerPool")
                .inNamespace(namespace)
                .withName(pool)
                .get();
        if (bwp == null || !(bwp.getAdditionalProperties().get("status") instanceof Map<?, ?> status)) {
            return "";
        }
        Object reason = status.get("lastScaleReason");
        return reason == null ? "" : ": " + reason;
    }

    /** Clears the totals for the next trace (the current counts stay). */
    void reset() {
        replicaSeconds = 0;
        scaleEvents = 0;
        maxPods = pods;
        startPods = pods;
    }

    /** The pods there were when the totals were last cleared (a trace starts where the previous one left). */
    int startPods() {
        return startPods;
    }

    String pool() {
        return pool;
    }

    double replicaSeconds() {
        return replicaSeconds;
    }

    int scaleEvents() {
        return scaleEvents;
    }

    int desired() {
        return desired;
    }

    int pods() {
        return pods;
    }

    int ready() {
        return ready;
    }

    int maxPods() {
        return maxPods;
    }
}
