package dev.backstage.operator.autoscaler;

import dev.backstage.operator.model.AutoscalingSpec;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.operator.model.Conditions;
import dev.backstage.operator.scaling.ScalingDecision;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * What a user sets to overrule the autoscaler, as KEDA users know it: the pause annotation holds the replicas
 * where they are, and {@code spec.autoscaling.fallbackReplicas} is the count to run while the backlog cannot be
 * read. Applied to the poll's status copy after the decision.
 */
public final class ScalingControls {
    /** {@code "true"} holds the pool's replicas: the autoscaler measures and reports, but does not change them. */
    public static final String PAUSED_ANNOTATION = "backstage.dev/autoscaling-paused";
    /** lastScaleReason when the fallback count was set. */
    static final String FALLBACK_REASON = "backlog unavailable: spec.autoscaling.fallbackReplicas";

    private ScalingControls() {}

    public static boolean paused(BackstageWorkerPool pool) {
        Map<String, String> annotations = pool.getMetadata().getAnnotations();
        return annotations != null
                && "true"
                        .equalsIgnoreCase(String.valueOf(annotations.get(PAUSED_ANNOTATION))
                                .trim());
    }

    /** The decision to write: none while paused (the status keeps desiredReplicas as it is). */
    static ScalingDecision decisionToWrite(BackstageWorkerPool pool, ScalingDecision decision) {
        return paused(pool) ? null : decision;
    }

    /**
     * Sets desiredReplicas to the fallback count when the backlog could not be read and a fallback is set (and the
     * pool is not paused).
     *
     * @return the count before, when this changed it
     */
    static Optional<Integer> applyFallback(BackstageWorkerPool pool, boolean backlogAvailable, Instant now) {
        AutoscalingSpec autoscaling = pool.getSpec().getAutoscaling();
        if (backlogAvailable
                || paused(pool)
                || autoscaling == null
                || !autoscaling.isOn()
                || autoscaling.getFallbackReplicas() == null) {
            return Optional.empty();
        }
        int min = autoscaling.getMinReplicas() == null ? 0 : autoscaling.getMinReplicas();
        int max = autoscaling.getMaxReplicas() == null ? Integer.MAX_VALUE : autoscaling.getMaxReplicas();
        int fallback = Math.max(min, Math.min(max, autoscaling.getFallbackReplicas()));
        BackstageWorkerPoolStatus status = pool.getStatus();
        Integer before = status.getDesiredReplicas();
        if (before != null && before == fallback) {
            return Optional.empty();
        }
        status.setDesiredReplicas(fallback);
        status.setLastScaleTime(Conditions.timestamp(now));
        status.setLastScaleReason(FALLBACK_REASON);
        return Optional.of(before == null ? 0 : before);
    }
}
