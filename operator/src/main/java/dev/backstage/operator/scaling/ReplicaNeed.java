package dev.backstage.operator.scaling;

/**
 * How many replicas one sample calls for, before rounding, limits and stabilization.
 *
 * @param backlogReplicas outstanding / targetBacklogPerReplica
 * @param drainReplicas   replicas that clear the outstanding work within the drain target while keeping up
 *                        with arrivals; {@code null} when no drain target is set or the rates are unknown
 * @param rates           the rates the drain figure was computed from
 */
public record ReplicaNeed(double backlogReplicas, Double drainReplicas, RateEstimate rates) {

    /** The larger of the two needs. */
    public double replicas() {
        return drainReplicas == null ? backlogReplicas : Math.max(backlogReplicas, drainReplicas);
    }

    /** True when the drain target asks for more than the backlog target. */
    public boolean drainDominates() {
        return drainReplicas != null && drainReplicas > backlogReplicas;
    }
}
