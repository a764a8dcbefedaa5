package dev.backstage.operator.scaling;

/**
 * How many replicas one sample calls for, before rounding, limits and stabilization.
 *
 * @param backlogReplicas outstanding / targetBacklogPerReplica
 * @param drainReplicas   replicas that clear the outstanding work within the drain target while keeping up
 *                        with arrivals; {@code null} when no drain target is set or the rates are unknown
 * @param busyReplicas    in flight / concurrency: replicas' worth of slots busy right now; {@code null} when
 *                        the concurrency or the in-flight count is unknown. A floor for scaling down, not a
 *                        reason to scale up (terminating pods' jobs count in flight too)
 * @param rates           the rates the drain figure was computed from ({@code null} without a drain target)
 */
public record ReplicaNeed(double backlogReplicas, Double drainReplicas, Double busyReplicas, RateEstimate rates) {

    /** What to scale up to: the larger of the backlog and drain needs. */
    public double replicas() {
        return drainReplicas == null ? backlogReplicas : Math.max(backlogReplicas, drainReplicas);
    }

    /** What scaling down must keep: {@link #replicas()}, and never fewer than are busy. */
    public double replicasToKeep() {
        return busyReplicas == null ? replicas() : Math.max(replicas(), busyReplicas);
    }

    /** True when the drain target asks for more than the backlog target. */
    public boolean drainDominates() {
        return drainReplicas != null && drainReplicas > backlogReplicas;
    }
}
