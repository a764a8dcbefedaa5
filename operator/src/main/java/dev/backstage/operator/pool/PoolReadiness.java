package dev.backstage.operator.pool;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.Condition;
import dev.backstage.operator.model.Conditions;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The pool's Ready condition, from a closed set of reasons. A pool is Ready when its topology is Ready and its
 * Deployment has at least one ready replica (or is scaled to zero on purpose): the pool is doing its work. A
 * scale-up, a scale-down or a rolling update of a working pool leaves Ready alone; {@link PoolScaling} (the
 * {@code Scaling} condition) says that the replicas are still converging on the desired count.
 *
 * @param status  {@code True} or {@code False}
 * @param reason  one of the constants below
 */
public record PoolReadiness(String status, String reason, String message) {
    public static final String TOPOLOGY_NOT_FOUND = "TopologyNotFound";
    public static final String TOPOLOGY_NOT_READY = "TopologyNotReady";
    public static final String DEPLOYMENT_NOT_FOUND = "DeploymentNotFound";
    public static final String ROLLOUT_IN_PROGRESS = "RolloutInProgress";
    public static final String REPLICAS_NOT_READY = "ReplicasNotReady";
    public static final String REPLICAS_READY = "ReplicasReady";
    public static final String RECONCILE_FAILED = "ReconcileFailed";

    public boolean ready() {
        return Conditions.TRUE.equals(status);
    }

    /** Not ready only because the Deployment is still rolling out or its first pods are starting. */
    public boolean awaitsRollout() {
        return ROLLOUT_IN_PROGRESS.equals(reason) || REPLICAS_NOT_READY.equals(reason);
    }

    public static PoolReadiness topologyNotFound(String namespace, String topology) {
        return new PoolReadiness(
                Conditions.FALSE,
                TOPOLOGY_NOT_FOUND,
                "BackstageTopology '" + topology + "' not found in namespace '" + namespace
                        + "'; create it or fix spec.topologyRef.name");
    }

    /** The failure in a line or two: JOSDK's aggregated workflow error carries stack traces in its message. */
    public static PoolReadiness failed(Exception e) {
        var failures = WorkflowFailures.of(e);
        String message = failures.size() == 1 && failures.containsKey("reconcile")
                ? describe(e)
                : failures.entrySet().stream()
                        .map(entry -> entry.getKey() + ": " + describe(entry.getValue()))
                        .collect(Collectors.joining("; "));
        if (message.length() > MAX_MESSAGE) {
            message = message.substring(0, MAX_MESSAGE) + "…";
        }
        return new PoolReadiness(Conditions.FALSE, RECONCILE_FAILED, message);
    }

    private static final int MAX_MESSAGE = 512;

    private static String describe(Throwable t) {
        String text =
                t.getMessage() == null ? "" : t.getMessage().lines().findFirst().orElse("");
        return t.getClass().getSimpleName() + (text.isEmpty() ? "" : ": " + text);
    }

    /**
     * Readiness once the topology exists. "Not Ready" for a topology means no {@code Ready=True} condition (absent,
     * False or Unknown), so a topology nobody has reconciled yet does not pass for ready.
     */
    public static PoolReadiness of(BackstageTopology topology, Optional<Deployment> deployment, int desired) {
        var topologyStatus = topology.getStatus();
        var conditions = topologyStatus == null ? null : topologyStatus.getConditions();
        if (!Conditions.isTrue(conditions, Conditions.READY)) {
            String detail = Conditions.find(conditions, Conditions.READY)
                    .map(PoolReadiness::describe)
                    .orElse("it has no Ready condition yet");
            return new PoolReadiness(
                    Conditions.FALSE,
                    TOPOLOGY_NOT_READY,
                    "BackstageTopology '" + topology.getMetadata().getName() + "' is not Ready: " + detail);
        }
        if (deployment.isEmpty()) {
            return new PoolReadiness(
                    Conditions.FALSE, DEPLOYMENT_NOT_FOUND, "the worker Deployment does not exist yet");
        }
        Deployment d = deployment.get();
        DeploymentStatus status = d.getStatus();
        int ready = status == null || status.getReadyReplicas() == null ? 0 : status.getReadyReplicas();
        if (desired == 0) {
            return new PoolReadiness(Conditions.TRUE, REPLICAS_READY, ready + "/0 replicas ready (scaled to zero)");
        }
        if (ready > 0) {
            // Working: more replicas on the way (or fewer, or a rolling update) is the Scaling condition's news.
            return new PoolReadiness(Conditions.TRUE, REPLICAS_READY, ready + "/" + desired + " replicas ready");
        }
        Long generation = d.getMetadata().getGeneration();
        Long observed = status == null ? null : status.getObservedGeneration();
        if (generation != null && (observed == null || observed < generation)) {
            return new PoolReadiness(
                    Conditions.FALSE,
                    ROLLOUT_IN_PROGRESS,
                    "the Deployment's controller has not yet observed generation " + generation);
        }
        int updated = status == null || status.getUpdatedReplicas() == null ? 0 : status.getUpdatedReplicas();
        if (updated < desired) {
            return new PoolReadiness(
                    Conditions.FALSE,
                    ROLLOUT_IN_PROGRESS,
                    updated + "/" + desired + " replicas updated to the current spec, none ready");
        }
        return new PoolReadiness(Conditions.FALSE, REPLICAS_NOT_READY, "0/" + desired + " replicas ready");
    }

    private static String describe(Condition c) {
        return "Ready=" + c.getStatus() + (c.getReason() == null ? "" : " (" + c.getReason() + ")")
                + (c.getMessage() == null ? "" : ": " + c.getMessage());
    }
}
