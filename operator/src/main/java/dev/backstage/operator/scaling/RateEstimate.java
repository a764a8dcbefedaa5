package dev.backstage.operator.scaling;

/**
 * Rates measured from a stretch of sample history.
 *
 * @param arrivalsPerSecond            jobs enqueued per second, {@code null} when no counter was available
 * @param completionsPerReplicaSecond  jobs one ready replica settles per second while it has work waiting,
 *                                     {@code null} when it could not be measured
 * @param missing                      why a rate is {@code null} (for the decision's reason), else {@code null}
 */
public record RateEstimate(Double arrivalsPerSecond, Double completionsPerReplicaSecond, String missing) {

    public static RateEstimate unknown(String why) {
        return new RateEstimate(null, null, why);
    }

    /** Both rates are known and a replica was seen to make progress: the drain target can be computed. */
    public boolean drainComputable() {
        return arrivalsPerSecond != null && completionsPerReplicaSecond != null && completionsPerReplicaSecond > 0;
    }
}
