package dev.backstage.operator.scaling;

/**
 * Rates measured from a stretch of sample history.
 *
 * @param arrivalsPerSecond           jobs enqueued per second over the rate window, {@code null} when no
 *                                    counter was available
 * @param latestArrivalsPerSecond     the same over the newest interval only, when that interval shows a step:
 *                                    more arrivals than the window's rate explains beyond chance (more than
 *                                    three standard deviations of a Poisson count above it); else {@code null}
 * @param completionsPerReplicaSecond jobs one replica can settle per second, {@code null} when it could not
 *                                    be measured
 * @param capacitySource              how that capacity was obtained (for the decision's reason)
 * @param missing                     why a rate is {@code null} (for the decision's reason), else {@code null}
 */
public record RateEstimate(Double arrivalsPerSecond, Double latestArrivalsPerSecond,
                           Double completionsPerReplicaSecond, String capacitySource, String missing) {

    public static final String MEASURED_WHILE_BUSY = "measured while busy";
    public static final String FROM_JOB_TIME = "from job time x concurrency";

    public static RateEstimate unknown(String why) {
        return new RateEstimate(null, null, null, null, why);
    }

    /** Both rates are known and a replica was seen to make progress: the drain target can be computed. */
    public boolean drainComputable() {
        return arrivalsPerSecond != null && completionsPerReplicaSecond != null && completionsPerReplicaSecond > 0;
    }

    /**
     * The arrival rate to size for: the newest interval's when it shows a step up, else the window's
     * average. A step is answered at the next poll, while a few extra arrivals in one short interval (noise
     * at low rates) do not inflate the pool.
     */
    public Double arrivalsToServe() {
        if (arrivalsPerSecond == null) {
            return null;
        }
        return latestArrivalsPerSecond == null ? arrivalsPerSecond : Math.max(arrivalsPerSecond, latestArrivalsPerSecond);
    }
}
