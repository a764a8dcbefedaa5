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
 * @param rates           the rates the drain and arrival figures were computed from ({@code null} when none
 *                        were estimated)
 * @param arrivalReplicas replicas that keep up with the arrivals expected once pods asked for now are ready and
 *                        until the next poll ({@link ArrivalBasis}); {@code null} when they cannot be computed
 * @param expectedArrivals the arrival rate (jobs/s) that figure is for, {@code null} with it
 * @param arrivalBasis    how {@code arrivalReplicas} was obtained, {@code null} with it
 */
public record ReplicaNeed(
        double backlogReplicas,
        Double drainReplicas,
        Double busyReplicas,
        RateEstimate rates,
        Double arrivalReplicas,
        Double expectedArrivals,
        ArrivalBasis arrivalBasis) {

    /** How the arrival need was computed. */
    public enum ArrivalBasis {
        /** expected arrival rate / measured per-replica rate */
        CAPACITY,
        /**
         * the backlog expected when new pods are up, / the backlog target: no replica ready and none measured, or
         * jobs waiting while the ready replicas serve less than arrives
         */
        BACKLOG_AT_STARTUP
    }

    /** Backlog and drain needs only. */
    public ReplicaNeed(double backlogReplicas, Double drainReplicas, Double busyReplicas, RateEstimate rates) {
        this(backlogReplicas, drainReplicas, busyReplicas, rates, null, null, null);
    }

    /** What to scale up to: the largest of the backlog, drain and arrival needs. */
    public double replicas() {
        double replicas = drainReplicas == null ? backlogReplicas : Math.max(backlogReplicas, drainReplicas);
        return arrivalReplicas == null ? replicas : Math.max(replicas, arrivalReplicas);
    }

    /** True when the arrival need asks for more than the backlog and drain needs. */
    public boolean arrivalsDominate() {
        return arrivalReplicas != null
                && arrivalReplicas > backlogReplicas
                && (drainReplicas == null || arrivalReplicas > drainReplicas);
    }

    /** What scaling down must keep: {@link #replicas()}, and never fewer than are busy. */
    public double replicasToKeep() {
        return busyReplicas == null ? replicas() : Math.max(replicas(), busyReplicas);
    }

    /** True when the drain target asks for more than the backlog target. */
    public boolean drainDominates() {
        return drainReplicas != null
                && drainReplicas > backlogReplicas
                && (arrivalReplicas == null || drainReplicas >= arrivalReplicas);
    }
}
