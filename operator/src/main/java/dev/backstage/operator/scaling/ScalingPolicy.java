package dev.backstage.operator.scaling;

import java.time.Duration;
import java.util.Objects;

/**
 * How one worker pool scales on its backlog: the pool spec's autoscaling block, as a value.
 *
 * @param minReplicas             lowest replica count (0 allows scale-to-zero)
 * @param maxReplicas             highest replica count
 * @param targetBacklogPerReplica outstanding jobs (undelivered + in flight) one replica should carry:
 *                                {@code needed = outstanding / targetBacklogPerReplica}
 * @param targetDrain             optional: also run enough replicas to clear the undelivered backlog within
 *                                this time at the measured per-replica completion rate while keeping up with
 *                                arrivals; the larger of the two needs wins. {@code null} = off
 * @param scaleDownWindow         scale-down stabilization: scale down only to what the highest need seen
 *                                over this window still allows (the HPA's behaviour, 60 s by default, not 300 s)
 * @param tolerance               headroom kept when scaling down, as a fraction (0.1 = 10 %): the new count
 *                                must cover the window's highest need times {@code 1 + tolerance}. This is
 *                                the band that stops flapping around a threshold; scale-up has none
 * @param partitionCap            optional: Kafka partition count of the pool's topics; replicas beyond it
 *                                would sit idle, so the desired count is capped there. {@code null} = no cap
 * @param rateWindow              how far back arrival and completion rates are estimated from
 * @param concurrencyPerReplica   optional: jobs one replica runs at once (the pool's worker concurrency).
 *                                Enables two things: a scale-down floor of {@code inFlight / concurrency}
 *                                (never take away replicas that are busy), and measuring a replica's
 *                                capacity from job times (Little's law) when no queue was waiting.
 *                                {@code null} = unknown
 * @param podStartup              how long a new pod takes from creation to ready (image pull, JVM start,
 *                                broker connection). Replicas asked for now only work after it, so the
 *                                arrival need is sized for the rate expected then ({@link #forecastHorizon})
 * @param pollInterval            how often the operator decides; a decision has to hold until the next one
 *                                has had its pods started, so it is part of the forecast horizon
 * @param scaleUpLookahead        calm on the way up: a scale-up while the arrival trend rises sizes for the rate
 *                                expected this much beyond the forecast horizon, so a rising wave is met in a
 *                                few batches instead of one replica per poll
 * @param scaleDownInterval       calm on the way down: no down-move sooner than this after the last one, so a
 *                                falling wave is followed in batches (after an up-move the window already holds),
 *                                unless the move at least halves the count (a burst that ended)
 */
public record ScalingPolicy(
        int minReplicas,
        int maxReplicas,
        long targetBacklogPerReplica,
        Duration targetDrain,
        Duration scaleDownWindow,
        double tolerance,
        Integer partitionCap,
        Duration rateWindow,
        Integer concurrencyPerReplica,
        Duration podStartup,
        Duration pollInterval,
        Duration scaleUpLookahead,
        Duration scaleDownInterval) {

    public static final Duration DEFAULT_SCALE_DOWN_WINDOW = Duration.ofSeconds(60);
    public static final double DEFAULT_TOLERANCE = 0.10;
    public static final Duration DEFAULT_RATE_WINDOW = Duration.ofSeconds(60);
    public static final Duration DEFAULT_POD_STARTUP = Duration.ofSeconds(10);
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(5);
    public static final Duration DEFAULT_SCALE_UP_LOOKAHEAD = Duration.ofSeconds(120);
    public static final Duration DEFAULT_SCALE_DOWN_INTERVAL = Duration.ofSeconds(60);

    /**
     * Kept beyond the longest window so that the sample just before a window's start is still there: the
     * decider only scales down once it has observed a whole window (see {@link ScalingDecider}).
     */
    static final Duration HISTORY_SLACK = Duration.ofSeconds(60);
    /**
     * How long a replica's capacity measured while busy stays usable when nothing newer measured it: the history
     * is kept at least this long ({@link RateEstimator} looks back through it).
     */
    static final Duration CAPACITY_MEMORY = Duration.ofMinutes(10);

    public ScalingPolicy {
        Objects.requireNonNull(scaleDownWindow, "scaleDownWindow");
        Objects.requireNonNull(rateWindow, "rateWindow");
        Objects.requireNonNull(podStartup, "podStartup");
        Objects.requireNonNull(pollInterval, "pollInterval");
        Objects.requireNonNull(scaleUpLookahead, "scaleUpLookahead");
        Objects.requireNonNull(scaleDownInterval, "scaleDownInterval");
        if (scaleUpLookahead.isNegative()) {
            throw new IllegalArgumentException("scaleUpLookahead must not be negative, got " + scaleUpLookahead);
        }
        if (scaleDownInterval.isNegative()) {
            throw new IllegalArgumentException("scaleDownInterval must not be negative, got " + scaleDownInterval);
        }
        if (podStartup.isNegative()) {
            throw new IllegalArgumentException("podStartup must not be negative, got " + podStartup);
        }
        if (pollInterval.isNegative() || pollInterval.isZero()) {
            throw new IllegalArgumentException("pollInterval must be positive, got " + pollInterval);
        }
        if (minReplicas < 0) {
            throw new IllegalArgumentException("minReplicas must be >= 0, got " + minReplicas);
        }
        if (maxReplicas < 1 || maxReplicas < minReplicas) {
            throw new IllegalArgumentException(
                    "maxReplicas must be >= 1 and >= minReplicas (" + minReplicas + "), got " + maxReplicas);
        }
        if (targetBacklogPerReplica < 1) {
            throw new IllegalArgumentException("targetBacklogPerReplica must be >= 1, got " + targetBacklogPerReplica);
        }
        if (targetDrain != null && (targetDrain.isNegative() || targetDrain.isZero())) {
            throw new IllegalArgumentException("targetDrain must be positive, got " + targetDrain);
        }
        if (scaleDownWindow.isNegative()) {
            throw new IllegalArgumentException("scaleDownWindow must not be negative, got " + scaleDownWindow);
        }
        if (!(tolerance >= 0 && tolerance < 1)) {
            throw new IllegalArgumentException("tolerance must be in [0, 1), got " + tolerance);
        }
        if (partitionCap != null && partitionCap < 1) {
            throw new IllegalArgumentException("partitionCap must be >= 1, got " + partitionCap);
        }
        if (rateWindow.isNegative() || rateWindow.isZero()) {
            throw new IllegalArgumentException("rateWindow must be positive, got " + rateWindow);
        }
        if (concurrencyPerReplica != null && concurrencyPerReplica < 1) {
            throw new IllegalArgumentException("concurrencyPerReplica must be >= 1, got " + concurrencyPerReplica);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    public boolean hasDrainTarget() {
        return targetDrain != null;
    }

    /**
     * Highest count the decider will ask for: {@code maxReplicas}, or the partition count when that is lower.
     * {@code minReplicas} wins over a lower partition count (the user asked for it; admission warns).
     */
    public int upperBound() {
        int upper = partitionCap == null ? maxReplicas : Math.min(maxReplicas, partitionCap);
        return Math.max(minReplicas, upper);
    }

    /** True when the partition count, not {@code maxReplicas}, is what caps the pool. */
    public boolean cappedByPartitions() {
        return partitionCap != null && partitionCap < maxReplicas;
    }

    /**
     * How far ahead the arrival need looks: pods asked for now are ready after {@code podStartup}, and the count
     * decided now stands until the next poll's pods are ready, {@code pollInterval} later.
     */
    public Duration forecastHorizon() {
        return podStartup.plus(pollInterval);
    }

    /** How much sample history the operator should keep per pool (see {@link SampleHistory#append}). */
    public Duration historyRetention() {
        // A replica's capacity measured while busy is remembered this long (RateEstimator), read from the history.
        return settleTime().compareTo(CAPACITY_MEMORY) >= 0 ? settleTime() : CAPACITY_MEMORY;
    }

    /**
     * How long the asked-for count must have held for the pool to count as settled ({@link ScalingDecider}: the
     * down band narrows to the tolerance): the longer window, or twice {@code scaleDownInterval}, plus a slack.
     */
    public Duration settleTime() {
        Duration longest = scaleDownWindow.compareTo(rateWindow) >= 0 ? scaleDownWindow : rateWindow;
        if (scaleDownInterval.multipliedBy(2).compareTo(longest) > 0) {
            // The last down-move must still be in the history to be seen.
            longest = scaleDownInterval.multipliedBy(2);
        }
        return longest.plus(HISTORY_SLACK);
    }

    /** How far ahead a scale-up on a rising trend sizes: the forecast horizon plus the lookahead. */
    public Duration batchHorizon() {
        return forecastHorizon().plus(scaleUpLookahead);
    }

    /** Defaults: min 0, max 10, 10 jobs per replica, no drain target, 60 s windows, 10 % tolerance, no cap,
     * concurrency unknown, pods ready 10 s after creation, a poll every 5 s, scale-ups on a rising trend sized
     * 120 s further ahead, down-moves at most every 60 s. */
    public static final class Builder {
        private int minReplicas = 0;
        private int maxReplicas = 10;
        private long targetBacklogPerReplica = 10;
        private Duration targetDrain;
        private Duration scaleDownWindow = DEFAULT_SCALE_DOWN_WINDOW;
        private double tolerance = DEFAULT_TOLERANCE;
        private Integer partitionCap;
        private Duration rateWindow = DEFAULT_RATE_WINDOW;
        private Integer concurrencyPerReplica;
        private Duration podStartup = DEFAULT_POD_STARTUP;
        private Duration pollInterval = DEFAULT_POLL_INTERVAL;
        private Duration scaleUpLookahead = DEFAULT_SCALE_UP_LOOKAHEAD;
        private Duration scaleDownInterval = DEFAULT_SCALE_DOWN_INTERVAL;

        private Builder() {}

        public Builder scaleUpLookahead(Duration value) {
            this.scaleUpLookahead = value;
            return this;
        }

        public Builder scaleDownInterval(Duration value) {
            this.scaleDownInterval = value;
            return this;
        }

        public Builder podStartup(Duration value) {
            this.podStartup = value;
            return this;
        }

        public Builder pollInterval(Duration value) {
            this.pollInterval = value;
            return this;
        }

        public Builder minReplicas(int value) {
            this.minReplicas = value;
            return this;
        }

        public Builder maxReplicas(int value) {
            this.maxReplicas = value;
            return this;
        }

        public Builder targetBacklogPerReplica(long value) {
            this.targetBacklogPerReplica = value;
            return this;
        }

        public Builder targetDrain(Duration value) {
            this.targetDrain = value;
            return this;
        }

        public Builder scaleDownWindow(Duration value) {
            this.scaleDownWindow = value;
            return this;
        }

        public Builder tolerance(double value) {
            this.tolerance = value;
            return this;
        }

        public Builder partitionCap(Integer value) {
            this.partitionCap = value;
            return this;
        }

        public Builder rateWindow(Duration value) {
            this.rateWindow = value;
            return this;
        }

        public Builder concurrencyPerReplica(Integer value) {
            this.concurrencyPerReplica = value;
            return this;
        }

        public ScalingPolicy build() {
            return new ScalingPolicy(
                    minReplicas,
                    maxReplicas,
                    targetBacklogPerReplica,
                    targetDrain,
                    scaleDownWindow,
                    tolerance,
                    partitionCap,
                    rateWindow,
                    concurrencyPerReplica,
                    podStartup,
                    pollInterval,
                    scaleUpLookahead,
                    scaleDownInterval);
        }
    }
}
