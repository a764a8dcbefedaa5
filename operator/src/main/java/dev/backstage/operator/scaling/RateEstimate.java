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
 * @param trendArrivalsPerSecond      the arrival rate now on the trend line through the window's intervals
 *                                    ({@link RateEstimator}), {@code null} when no counter was available
 * @param trendPerSecondSquared       how fast the arrival rate rises (jobs/s per second) on that line; 0 when
 *                                    it is flat, falling, a step, or there are fewer than three intervals
 * @param trendIsStep                 the arrivals stepped to a new level within the trend window: the trend's
 *                                    value is that level, not a line carried forward
 * @param levelArrivalsPerSecond      the arrival rate since the newest change of level in the whole rate window,
 *                                    when its intervals show one beyond chance ({@link RateEstimator}), else
 *                                    {@code null}: after a step down the window's average still holds the old
 *                                    level for a whole window
 * @param busyPerReplicaSecond        completions per ready replica while jobs waited and the ready count held,
 *                                    {@code null} when no such interval was seen
 * @param jobTimePerReplicaSecond     concurrency / job time (Little's law), {@code null} when not measurable
 */
public record RateEstimate(
        Double arrivalsPerSecond,
        Double latestArrivalsPerSecond,
        Double completionsPerReplicaSecond,
        String capacitySource,
        String missing,
        Double trendArrivalsPerSecond,
        double trendPerSecondSquared,
        boolean trendIsStep,
        Double levelArrivalsPerSecond,
        Double busyPerReplicaSecond,
        Double jobTimePerReplicaSecond) {

    public static final String MEASURED_WHILE_BUSY = "measured while busy";
    public static final String FROM_JOB_TIME = "from job time x concurrency";
    public static final String RECONCILED = "measured while busy and from job time x concurrency, weighted by jobs";

    public static RateEstimate unknown(String why) {
        return new RateEstimate(null, null, null, null, why, null, 0, false, null, null, null);
    }

    /** A replica's capacity was measured (and is not zero): arrivals can be turned into replicas. */
    public boolean capacityKnown() {
        return completionsPerReplicaSecond != null && completionsPerReplicaSecond > 0;
    }

    /**
     * The arrival rate expected {@code seconds} from now: the trend line carried forward (it only ever rises),
     * or the newest interval's rate when that shows a step up the line does not show yet. Without a line, the
     * rate to serve ({@link #arrivalsToServe()}).
     */
    public Double arrivalsExpectedIn(double seconds) {
        if (trendArrivalsPerSecond == null) {
            return arrivalsToServe();
        }
        double trend = trendArrivalsPerSecond + trendPerSecondSquared * Math.max(0, seconds);
        return latestArrivalsPerSecond == null ? trend : Math.max(latestArrivalsPerSecond, trend);
    }

    /** Both rates are known and a replica was seen to make progress: the drain target can be computed. */
    public boolean drainComputable() {
        return arrivalsPerSecond != null && completionsPerReplicaSecond != null && completionsPerReplicaSecond > 0;
    }

    /**
     * The arrival rate the drain target keeps up with: the newest interval's when it shows a step up; else the new
     * level when the trend is a step ({@link #trendIsStep}) or the rate window shows a change of level
     * ({@link #levelArrivalsPerSecond}); else the window's average. After arrivals stepped down (or stopped), the
     * window's average still holds the old level for a whole window: it kept the drain target's replicas up that
     * long, and each step of its decay was one more down-move. A step up is answered at the next poll, while a few
     * extra arrivals in one short interval (noise at low rates) do not inflate the pool.
     */
    public Double arrivalsToServe() {
        if (arrivalsPerSecond == null) {
            return null;
        }
        double base = trendIsStep && trendArrivalsPerSecond != null
                ? trendArrivalsPerSecond
                : levelArrivalsPerSecond != null ? levelArrivalsPerSecond : arrivalsPerSecond;
        return latestArrivalsPerSecond == null ? base : Math.max(base, latestArrivalsPerSecond);
    }
}
