package dev.backstage.operator.workload;

import dev.backstage.operator.model.AutoscalingSpec;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;

/**
 * The one place that decides how many replicas a pool's Deployment runs.
 *
 * <p>Autoscaling off: {@code spec.replicas}. Autoscaling on: {@code status.desiredReplicas}, which the autoscaler
 * writes (minReplicas until it has decided), kept within [minReplicas, maxReplicas] so that tightening the
 * bounds takes effect before the autoscaler's next decision. The autoscaler never touches the Deployment:
 * it writes status, and the pool reconciler (which reconciles on every desiredReplicas change) applies it here.
 */
public final class DeploymentReplicas {
    static final int DEFAULT_REPLICAS = 1;
    static final int DEFAULT_MIN = 1;
    static final int DEFAULT_MAX = 10;

    private DeploymentReplicas() {}

    public static int of(BackstageWorkerPool pool) {
        AutoscalingSpec autoscaling = pool.getSpec().getAutoscaling();
        if (autoscaling == null || !autoscaling.isOn()) {
            Integer replicas = pool.getSpec().getReplicas();
            return replicas == null ? DEFAULT_REPLICAS : replicas;
        }
        int min = autoscaling.getMinReplicas() == null ? DEFAULT_MIN : autoscaling.getMinReplicas();
        int max = autoscaling.getMaxReplicas() == null ? DEFAULT_MAX : autoscaling.getMaxReplicas();
        BackstageWorkerPoolStatus status = pool.getStatus();
        Integer decided = status == null ? null : status.getDesiredReplicas();
        int value = decided == null ? min : decided;
        return Math.max(min, Math.min(max, value));
    }
}
