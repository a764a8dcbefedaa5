package dev.backstage.operator.pool;

import dev.backstage.operator.model.Conditions;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import java.util.Optional;

/**
 * The pool's {@code Scaling} condition, from a closed set of reasons: {@code True} while the worker pods converge
 * on the desired count or roll out a new spec, {@code False} once every desired replica is updated and ready. It is
 * the progress signal that {@code Ready} is not: a working pool stays Ready through an ordinary scale-up, and a
 * GitOps health check or {@code kubectl wait --for=condition=Scaling=False} reads this one to wait for the end.
 *
 * @param status  {@code True}, {@code False} or {@code Unknown}
 * @param reason  one of the constants below
 */
public record PoolScaling(String status, String reason, String message) {
    /** The condition's type. */
    public static final String TYPE = "Scaling";

    /** True: fewer replicas are ready than desired (new pods are starting). */
    public static final String SCALING_UP = "ScalingUp";
    /** True: more pods run than desired (surplus pods are stopping). */
    public static final String SCALING_DOWN = "ScalingDown";
    /** True: the Deployment is replacing pods with ones of the current spec. */
    public static final String ROLLING_OUT = "RollingOut";
    /** False: every desired replica runs the current spec and is ready. */
    public static final String STABLE = "Stable";
    /** Unknown: the worker Deployment does not exist (yet). */
    public static final String DEPLOYMENT_NOT_FOUND = "DeploymentNotFound";

    public boolean inProgress() {
        return Conditions.TRUE.equals(status);
    }

    /** The condition for the pool's Deployment when {@code desired} replicas are wanted. */
    public static PoolScaling of(Optional<Deployment> deployment, int desired) {
        if (deployment.isEmpty()) {
            return new PoolScaling(
                    Conditions.UNKNOWN, DEPLOYMENT_NOT_FOUND, "the worker Deployment does not exist yet");
        }
        Deployment d = deployment.get();
        DeploymentStatus status = d.getStatus();
        int pods = count(status == null ? null : status.getReplicas());
        int updated = count(status == null ? null : status.getUpdatedReplicas());
        int ready = count(status == null ? null : status.getReadyReplicas());
        Long generation = d.getMetadata().getGeneration();
        Long observed = status == null ? null : status.getObservedGeneration();
        String counts = ready + "/" + desired + " replicas ready";
        if (generation != null && (observed == null || observed < generation)) {
            return new PoolScaling(
                    Conditions.TRUE,
                    ready < desired ? SCALING_UP : ROLLING_OUT,
                    counts + "; the Deployment's controller has not yet observed generation " + generation);
        }
        if (ready < desired) {
            return new PoolScaling(Conditions.TRUE, SCALING_UP, counts);
        }
        if (updated < desired) {
            return new PoolScaling(
                    Conditions.TRUE,
                    ROLLING_OUT,
                    updated + "/" + desired + " replicas updated to the" + " current spec");
        }
        if (pods > desired) {
            return new PoolScaling(Conditions.TRUE, SCALING_DOWN, pods + " pods running, " + desired + " desired");
        }
        return new PoolScaling(Conditions.FALSE, STABLE, counts);
    }

    private static int count(Integer value) {
        return value == null ? 0 : value;
    }
}
