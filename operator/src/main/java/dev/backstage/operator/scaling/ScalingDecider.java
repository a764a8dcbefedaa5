package dev.backstage.operator.scaling;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;

/**
 * The autoscaler's decision function: policy + current replicas + recent backlog samples → desired replicas
 * and a reason. Pure and stateless (no clock, no I/O): the newest sample's time is "now", and everything it
 * remembers is in the {@link SampleHistory} the caller passes in. One instance can serve every pool.
 *
 * <p>The rules, in order:
 * <ol>
 *   <li><b>Never scale on a missing figure.</b> If the newest sample is unavailable (broker error), hold
 *       the current count (only the policy bounds still apply) and say so.</li>
 *   <li><b>Need.</b> {@code outstanding = undelivered + in flight};
 *       {@code need = outstanding / targetBacklogPerReplica}. With a drain target and measured rates,
 *       {@code drainNeed = (undelivered / targetDrain + arrivalRate) / perReplicaRate} ({@link RateEstimator};
 *       the arrival rate is {@link RateEstimate#arrivalsToServe()}: the level since the newest change of level in the
 *       rate window, after a step down or a stop, not the window's mean, which kept replicas up for a whole window
 *       and cost a down-move per step of its decay; the newest interval's when that shows a step up). With an arrival counter
 *       (not on Kafka, see below) also an <em>arrival need</em>: pods asked for now only work after
 *       {@code podStartup}, and this count stands until the next poll's pods are up, so
 *       {@code arrivalNeed = expectedArrivals(podStartup + pollInterval) / perReplicaRate}, the expected rate
 *       being the arrival trend line carried forward (rising only) or a step the newest interval shows.
 *       While no replica is ready and none was measured, it is the backlog the pods will find instead:
 *       {@code (outstanding + newestArrivalRate * podStartup) / targetBacklogPerReplica}, once work kept
 *       arriving after some was already waiting (a single batch is not a rate); and while jobs wait and the
 *       ready replicas serve less than is expected to arrive, the backlog they will find
 *       ({@code (outstanding + (expected - ready * perReplicaRate) * podStartup) / targetBacklogPerReplica}),
 *       so a step is answered in one move rather than one per poll as the queue climbs. The largest need wins.
 *       Kafka gets an arrival need too, from its end-offset rate (arrivals) and committed-offset rate
 *       (completions); its lag holds the records being processed, so a replica's capacity is measured only
 *       while the lag exceeded the ready replicas' slots ({@code ready x concurrency}), never from job time.</li>
 *   <li><b>Scale up at once</b> to {@code ceil(need)} when that is above the current count; while the arrival
 *       line rises, to the need {@code scaleUpLookahead} further ahead (at most a quarter or 3 replicas more), so
 *       a rising wave is met in a few batches. One undelivered job activates a pool at zero. A scale-up on a
 *       regular poll that activates the pool or sees arrivals step up asks for one more sample {@link #FOLLOW_UP} later
 *       ({@link ScalingDecision#probeAgainIn()}), which measures the new rate.</li>
 *   <li><b>No scale-down as arrivals step up, resume or rise.</b> When the newest interval shows a step up in
 *       arrivals (a burst after a quiet spell) the count holds, and a quick sample follows. It also holds while
 *       arrivals that resumed after a quiet spell of at least half the {@code scaleDownWindow} are younger than the
 *       trend window (a burst that starts gently, e.g. a ramp from zero, is no significant step yet), and while
 *       the arrival line rises toward the count (the count at most {@link #RISE_HOLD_FACTOR} times the need the
 *       line forecasts {@link ScalingPolicy#batchHorizon()} ahead): a down-move then would be undone as the line
 *       climbs.</li>
 *   <li><b>Scale down through a window, calmly.</b> Otherwise take the highest need over the last
 *       {@code scaleDownWindow} (the HPA's stabilization: max of recommendations; batched scale-ups count as
 *       asked for), add the tolerance as headroom, and scale down to {@code ceil(maxNeed * (1 + tolerance))} if
 *       that is lower by at least {@link #DOWN_BAND} of the count and {@link #MIN_DOWN_STEP} replicas (unless
 *       to zero or minReplicas), and the last down-move is {@code scaleDownInterval} ago (a quarter of it when
 *       the move halves the count). When nothing is outstanding, nothing arrived through the whole window and
 *       the window would keep no more than {@link #MIN_DOWN_STEP} replicas for work that has since finished, the
 *       pool goes to zero (minReplicas) in one move instead of two. A need that wobbles around a threshold therefore never flaps, and a falling
 *       wave is followed in a few batches. It scales down only when the window was fully observed and had no
 *       unavailable sample (an error mid-window hides what the need was).</li>
 *   <li><b>Never scale in below what is busy.</b> In-flight work is part of the need, so it keeps at least
 *       one replica; with the pool's concurrency known, scale-down keeps {@code inFlight / concurrency}
 *       replicas (the slots in use). If the broker cannot tell the in-flight count, one replica stays.</li>
 *   <li><b>Bounds.</b> Clamp to {@code [minReplicas, min(maxReplicas, partitionCap)]} and report which bound
 *       clipped. Kafka is capped at the partition count directly: no recommendation lands between the cap
 *       and the metric (unlike clamping the lag metric, which can stall one replica below the cap under
 *       the HPA's tolerance).</li>
 * </ol>
 *
 * <p>Kept as one class: the rules above are one ordered decision over one {@link SampleHistory}, each rule using what
 * the earlier ones computed (the needs, the holds, the window), and {@code ScalingDeciderTest} tables them together;
 * about a sixth of its length is this description.
 */
public final class ScalingDecider {
    /** Needs within this of an integer count as that integer (float noise must not add a replica). */
    private static final double EPSILON = 1e-9;
    /** Far above any real pool; keeps a silly need (1e15 jobs / 1) from overflowing an int. */
    private static final double CEILING = 1_000_000;
    /**
     * After a scale-up on a regular poll that activated the pool from zero or saw arrivals step up, measure again
     * this soon: that poll can only tell the rate averaged over the whole poll interval (at activation, not at
     * all), the part before the change included; one second later the newest interval shows the rate as it is.
     */
    public static final Duration FOLLOW_UP = Duration.ofSeconds(1);
    /** A scale-up batched for a rising trend adds at most this fraction of the need. */
    static final double MAX_BATCH = 0.25;
    /** ... or at most this many replicas, when that is more (a small pool on a ramp would move by one otherwise). */
    static final int MIN_BATCH = 3;
    /** A down-move takes at least this share of the count ({@link #minimumDownStep}). */
    static final double DOWN_BAND = 0.2;
    /** A down-move takes at least this many replicas, unless it goes to zero or minReplicas. */
    static final int MIN_DOWN_STEP = 2;
    /**
     * No scale-down while the arrival line rises toward the count: the count is at most this multiple of the need
     * the line forecasts {@link ScalingPolicy#batchHorizon()} ahead. Further above it, the pool comes down (a
     * large pool left over from a burst is not held by a slow trickle).
     */
    static final double RISE_HOLD_FACTOR = 2;

    private final RateEstimator rates;

    public ScalingDecider(RateEstimator rates) {
        this.rates = Objects.requireNonNull(rates, "rates");
    }

    public ScalingDecider() {
        this(new RateEstimator());
    }

    public ScalingDecision decide(ScalingPolicy policy, int currentReplicas, SampleHistory history) {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(history, "history");
        if (currentReplicas < 0) {
            throw new IllegalArgumentException("currentReplicas must be >= 0, got " + currentReplicas);
        }
        if (history.isEmpty()) {
            return finish(policy, currentReplicas, currentReplicas, false, null, "no backlog sample yet", null);
        }
        BacklogSample latest = history.latest();
        if (!latest.available()) {
            String why = latest.unavailableReason() + (latest.note() == null ? "" : ": " + latest.note());
            return finish(
                    policy,
                    currentReplicas,
                    currentReplicas,
                    false,
                    null,
                    "backlog unavailable (" + why + ")",
                    "no backlog-driven change on a missing figure");
        }

        int last = history.size() - 1;
        ReplicaNeed need = needAt(policy, history, last);
        int upCount = roundUp(need.replicas());
        String measured = describe(policy, latest, need);
        if (upCount > currentReplicas) {
            int batched = Math.max(upCount, roundUp(batchedNeed(policy, need)));
            String note = batched > upCount
                    ? "arrivals rising, sized " + policy.scaleUpLookahead().toSeconds() + " s further ahead (" + batched
                            + " instead of " + upCount + ") so the rise is met in batches"
                    : null;
            ScalingDecision up = finish(policy, currentReplicas, batched, true, need, measured, note);
            return up.direction() == ScalingDirection.UP
                            && regularPoll(history)
                            && (currentReplicas == 0 || arrivalStep(need))
                    ? up.probingAgainIn(FOLLOW_UP)
                    : up;
        }
        if (arrivalStep(need) && currentReplicas > 0) {
            // The newest interval saw arrivals jump (a burst after a quiet spell): whatever the window says, this is
            // no moment to scale down. Measure the new rate a second from now.
            ScalingDecision hold = finish(
                    policy,
                    currentReplicas,
                    currentReplicas,
                    true,
                    need,
                    measured,
                    "arrivals stepped up to " + decimal(need.rates().latestArrivalsPerSecond())
                            + " jobs/s in the newest interval, no scale-down while they rise");
            return regularPoll(history) ? hold.probingAgainIn(FOLLOW_UP) : hold;
        }

        if (currentReplicas > 0 && risingToward(policy, need, currentReplicas)) {
            // A down-move now would be undone as the line climbs: the calm way is to let the need catch up.
            return finish(
                    policy,
                    currentReplicas,
                    currentReplicas,
                    true,
                    need,
                    measured,
                    "arrivals rising " + decimal2(need.rates().trendPerSecondSquared())
                            + " jobs/s per s toward the count, no scale-down while they rise");
        }
        Duration quiet = rates.quietBeforeResuming(history, last, RateEstimator.TREND_WINDOW);
        if (currentReplicas > 0
                && quiet != null
                && quiet.compareTo(policy.scaleDownWindow().dividedBy(2)) >= 0) {
            // A burst after an idle gap may start gently (a ramp from zero): not a significant step yet, and no line
            // either. Whatever the window says, this is no moment to scale down; the trend decides once it shows.
            return finish(
                    policy,
                    currentReplicas,
                    currentReplicas,
                    true,
                    need,
                    measured,
                    "arrivals resumed after " + quiet.toSeconds()
                            + " s of none, no scale-down until their trend shows ("
                            + RateEstimator.TREND_WINDOW.toSeconds() + " s)");
        }

        Duration window = policy.scaleDownWindow();
        String windowText = window.toSeconds() + " s";
        Instant cutoff = latest.at().minus(window);
        if (history.get(0).at().isAfter(cutoff)) {
            long observed = Duration.between(history.get(0).at(), latest.at()).toSeconds();
            return finish(
                    policy,
                    currentReplicas,
                    currentReplicas,
                    true,
                    need,
                    measured,
                    "only " + observed + " s of the " + windowText + " scale-down window observed so far");
        }
        double windowNeed = 0;
        boolean inFlightUnknownInWindow = false;
        for (int i = last; i >= 0 && !history.get(i).at().isBefore(cutoff); i--) {
            BacklogSample sample = history.get(i);
            if (!sample.available()) {
                return finish(
                        policy,
                        currentReplicas,
                        currentReplicas,
                        true,
                        need,
                        measured,
                        "backlog was unavailable at " + sample.at() + " (" + sample.unavailableReason()
                                + ") within the " + windowText + " scale-down window");
            }
            inFlightUnknownInWindow |= !sample.inFlightKnown();
            ReplicaNeed past = needAt(policy, history, i);
            // A batched scale-up's extra replicas count as asked for: dropping them at the next poll would be a flap.
            windowNeed = Math.max(windowNeed, Math.max(past.replicasToKeep(), batchedNeed(policy, past)));
        }

        // Nothing in the system now and nothing arrived through the whole window: the window's earlier needs were
        // work that has since finished, and no new work came. When all the window would keep for that finished
        // tail is a down step's worth of replicas or less, keeping them would only cost a second down-move 15-60 s
        // later: go to zero now. A larger count keeps the window's protection (a pause between bursts).
        boolean drained = windowNeed > 0
                && upCount == 0
                && latest.outstanding() == 0
                && latest.inFlightKnown()
                && roundUp(windowNeed * (1 + policy.tolerance())) <= MIN_DOWN_STEP
                && noArrivalsSince(history, cutoff);
        int downCount = windowNeed <= 0 || drained ? 0 : roundUp(windowNeed * (1 + policy.tolerance()));
        int candidate = Math.min(currentReplicas, Math.max(downCount, upCount));
        String note;
        if (candidate == 0 && currentReplicas > 0 && inFlightUnknownInWindow) {
            candidate = 1;
            note = "the broker cannot tell what is in flight, so idle is not proven";
        } else if (candidate == 0 && drained) {
            note = "nothing outstanding, and nothing arrived for " + windowText + " (the earlier work has finished)";
        } else if (candidate == 0) {
            note = currentReplicas == 0 ? null : "nothing outstanding or arriving for " + windowText;
        } else {
            note = "highest need over the last " + windowText + " was " + decimal(windowNeed) + " replicas, "
                    + downCount + " with " + percent(policy.tolerance()) + " headroom";
        }
        if (Math.max(candidate, policy.minReplicas()) < currentReplicas) {
            Instant lastMove = lastScaleDown(history, currentReplicas);
            // A move that at least halves the count (a burst ended) waits a quarter of the interval only.
            boolean halving = Math.max(candidate, policy.minReplicas()) * 2 <= currentReplicas;
            Duration interval = halving ? policy.scaleDownInterval().dividedBy(4) : policy.scaleDownInterval();
            if (lastMove != null && Duration.between(lastMove, latest.at()).compareTo(interval) < 0) {
                return finish(
                        policy,
                        currentReplicas,
                        currentReplicas,
                        true,
                        need,
                        measured,
                        "the window allows " + candidate + ", but the last scale-down was "
                                + Duration.between(lastMove, latest.at()).toSeconds()
                                + " s ago (down-moves at most every "
                                + policy.scaleDownInterval().toSeconds() + " s, every "
                                + policy.scaleDownInterval().dividedBy(4).toSeconds()
                                + " s when they halve the count)");
            }
            int band = settled(history, policy)
                    ? minimumSettledStep(policy, currentReplicas)
                    : minimumDownStep(currentReplicas);
            int target = Math.max(candidate, policy.minReplicas());
            if (target > 0 && target > policy.minReplicas() && currentReplicas - target < band) {
                return finish(
                        policy,
                        currentReplicas,
                        currentReplicas,
                        true,
                        need,
                        measured,
                        "the window allows " + candidate + ", within the band of " + band
                                + " replicas below the count (a down-move takes at least "
                                + percent(DOWN_BAND) + ", at least " + MIN_DOWN_STEP + " replicas; "
                                + percent(policy.tolerance()) + " once the count has held for "
                                + policy.scaleDownInterval().multipliedBy(2).toSeconds() + " s)");
            }
        }
        return finish(policy, currentReplicas, candidate, true, need, measured, note);
    }

    /**
     * A down-move must take away at least this many replicas: {@link #DOWN_BAND} of the count, and at least
     * {@link #MIN_DOWN_STEP}, unless it goes to zero or minReplicas. Together with the headroom the window adds,
     * this is the band a falling need has to leave before the pool follows it.
     */
    private static int minimumDownStep(int current) {
        return Math.max(MIN_DOWN_STEP, (int) Math.ceil(current * DOWN_BAND - EPSILON));
    }

    /**
     * A pool that has not been scaled for a while (the history over {@link ScalingPolicy#settleTime()} shows one
     * asked-for count) is settled: the band narrows to the tolerance, so a count
     * that landed high after a burst comes down to the level once the level has held, at the cost of one more event.
     */
    private static boolean settled(SampleHistory history, ScalingPolicy policy) {
        Integer asked = history.latest().askedReplicas();
        Instant since = history.latest().at().minus(policy.settleTime());
        if (asked == null || history.get(0).at().isAfter(since)) {
            return false;
        }
        for (int i = history.size() - 1; i >= 0 && !history.get(i).at().isBefore(since); i--) {
            if (!asked.equals(history.get(i).askedReplicas())) {
                return false;
            }
        }
        return true;
    }

    /** The settled band: the tolerance's share of the count, at least one replica. */
    private static int minimumSettledStep(ScalingPolicy policy, int current) {
        return Math.max(1, (int) Math.ceil(current * policy.tolerance() - EPSILON));
    }

    /**
     * When the pool was last scaled down, as far as the history shows ({@link BacklogSample#askedReplicas}): the
     * time of the sample whose decision lowered the count; the newest sample's time when the count is now lower
     * than it was asked at that sample (lowered since). {@code null} when no down-move is seen. Up-moves do not
     * count: the scale-down window already keeps the count up after one, and holding longer only costs.
     */
    static Instant lastScaleDown(SampleHistory history, int currentReplicas) {
        BacklogSample latest = history.latest();
        if (latest.askedReplicas() != null && latest.askedReplicas() > currentReplicas) {
            return latest.at();
        }
        for (int i = history.size() - 1; i >= 1; i--) {
            Integer after = history.get(i).askedReplicas();
            Integer before = history.get(i - 1).askedReplicas();
            if (after != null && before != null && after < before) {
                return history.get(i - 1).at();
            }
        }
        return null;
    }

    /**
     * The need a scale-up sizes for: while the arrival trend rises (a line, not a step), the arrivals expected
     * {@link ScalingPolicy#batchHorizon()} ahead rather than {@link ScalingPolicy#forecastHorizon()}, so a rising
     * wave is met in a few moves. Otherwise the need itself.
     */
    private static double batchedNeed(ScalingPolicy policy, ReplicaNeed need) {
        RateEstimate rates = need.rates();
        if (need.arrivalBasis() != ReplicaNeed.ArrivalBasis.CAPACITY
                || rates == null
                || rates.trendPerSecondSquared() <= 0
                || !rates.capacityKnown()) {
            return need.replicas();
        }
        double ahead = rates.arrivalsExpectedIn(seconds(policy.batchHorizon())) / rates.completionsPerReplicaSecond();
        // A batch adds at most a quarter, or MIN_BATCH replicas on a small pool: a line misread from a few noisy
        // intervals must not fill the pool.
        double cap = Math.max(need.replicas() * (1 + MAX_BATCH), need.replicas() + MIN_BATCH);
        return Math.max(need.replicas(), Math.min(ahead, cap));
    }

    /** Every interval that ends after {@code cutoff} has a counter that shows no arrival. */
    private boolean noArrivalsSince(SampleHistory history, Instant cutoff) {
        for (int i = history.size() - 1; i >= 1 && history.get(i).at().isAfter(cutoff); i--) {
            Double arrivals = rates.newestArrivals(history, i);
            if (arrivals == null || arrivals > 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * The arrival line rises and the count is no more than {@link #RISE_HOLD_FACTOR} times the need the line
     * forecasts {@link ScalingPolicy#batchHorizon()} ahead: replicas a down-move would drop are about to be needed.
     */
    private static boolean risingToward(ScalingPolicy policy, ReplicaNeed need, int currentReplicas) {
        RateEstimate rates = need.rates();
        if (rates == null || rates.trendPerSecondSquared() <= 0 || !rates.capacityKnown()) {
            return false;
        }
        double ahead = rates.arrivalsExpectedIn(seconds(policy.batchHorizon())) / rates.completionsPerReplicaSecond();
        return currentReplicas <= RISE_HOLD_FACTOR * ahead;
    }

    /**
     * True when the newest sample is not itself a follow-up: it is the first one, or came at least twice
     * {@link #FOLLOW_UP} after the one before. So a scale-up asks for at most one extra probe per poll.
     */
    private static boolean regularPoll(SampleHistory history) {
        if (history.size() < 2) {
            return true;
        }
        Duration gap = Duration.between(
                history.get(history.size() - 2).at(), history.latest().at());
        return gap.compareTo(FOLLOW_UP.multipliedBy(2)) >= 0;
    }

    /** The newest interval saw arrivals step up beyond chance ({@link RateEstimate#latestArrivalsPerSecond}). */
    private static boolean arrivalStep(ReplicaNeed need) {
        return need.rates() != null && need.rates().latestArrivalsPerSecond() != null;
    }

    /** The need of sample {@code index}, with rates estimated from the history up to that sample only. */
    ReplicaNeed needAt(ScalingPolicy policy, SampleHistory history, int index) {
        BacklogSample sample = history.get(index);
        double outstanding = sample.outstanding();
        double backlogReplicas = outstanding / policy.targetBacklogPerReplica();
        Double busyReplicas = policy.concurrencyPerReplica() != null && sample.inFlightKnown()
                ? sample.inFlight() / (double) policy.concurrencyPerReplica()
                : null;
        boolean kafka = policy.partitionCap() != null;
        RateEstimate estimate =
                rates.estimate(history, index, policy.rateWindow(), policy.concurrencyPerReplica(), kafka);
        Double arrivalReplicas = null;
        Double expected = null;
        ReplicaNeed.ArrivalBasis basis = null;
        if (estimate.arrivalsPerSecond() != null) {
            if (estimate.capacityKnown()) {
                expected = estimate.arrivalsExpectedIn(seconds(policy.forecastHorizon()));
                arrivalReplicas = expected / estimate.completionsPerReplicaSecond();
                basis = ReplicaNeed.ArrivalBasis.CAPACITY;
                // Jobs already wait and the ready replicas serve less than arrives: until pods asked for now are
                // ready the backlog grows by the difference. Size the backlog target for the backlog they will
                // find, so a step is answered in one move instead of one per poll while the queue climbs.
                double shortfall = expected - sample.readyReplicas() * estimate.completionsPerReplicaSecond();
                if (shortfall > 0 && sample.undelivered() > 0) {
                    double atStartup =
                            (outstanding + shortfall * seconds(policy.podStartup())) / policy.targetBacklogPerReplica();
                    if (atStartup > arrivalReplicas) {
                        arrivalReplicas = atStartup;
                        basis = ReplicaNeed.ArrivalBasis.BACKLOG_AT_STARTUP;
                    }
                }
            } else if (sample.readyReplicas() == 0
                    && index > 0
                    && history.get(index - 1).available()
                    && history.get(index - 1).outstanding() > 0) {
                // Nothing works the backlog off, and nothing tells what a replica can do yet: by the time pods
                // asked for now are ready, the arrivals will have added to it. Only once work kept arriving
                // after some was already waiting: a single batch is not a rate.
                expected = rates.newestArrivals(history, index);
                if (expected != null) {
                    arrivalReplicas =
                            (outstanding + expected * seconds(policy.podStartup())) / policy.targetBacklogPerReplica();
                    basis = ReplicaNeed.ArrivalBasis.BACKLOG_AT_STARTUP;
                }
            }
        }
        Double drainReplicas = null;
        if (policy.hasDrainTarget() && estimate.drainComputable()) {
            double drainSeconds = seconds(policy.targetDrain());
            // Jobs already running finish at the rate the arrival term pays for; the waiting ones must be cleared.
            double capacityNeeded = sample.undelivered() / drainSeconds + estimate.arrivalsToServe();
            drainReplicas = capacityNeeded / estimate.completionsPerReplicaSecond();
        }
        return new ReplicaNeed(
                backlogReplicas, drainReplicas, busyReplicas, estimate, arrivalReplicas, expected, basis);
    }

    private static double seconds(Duration duration) {
        return duration.toNanos() / 1e9;
    }

    /** Applies the policy bounds, then words the action from the final count so a reason never overstates. */
    private static ScalingDecision finish(
            ScalingPolicy policy,
            int current,
            int candidate,
            boolean available,
            ReplicaNeed need,
            String measured,
            String note) {
        int upper = policy.upperBound();
        int desired = candidate;
        ScalingLimit limit = ScalingLimit.NONE;
        String bound = "";
        String asked = need == null ? "" : "; the need asks for " + candidate;
        if (candidate > upper) {
            desired = upper;
            limit = policy.cappedByPartitions() ? ScalingLimit.PARTITIONS : ScalingLimit.MAX_REPLICAS;
            bound = limit == ScalingLimit.PARTITIONS
                    ? " (capped by the partition count " + policy.partitionCap() + asked + ")"
                    : " (capped at maxReplicas " + upper + asked + ")";
        } else if (candidate < policy.minReplicas()) {
            desired = policy.minReplicas();
            limit = ScalingLimit.MIN_REPLICAS;
            bound = " (kept at minReplicas " + desired + asked + ")";
        }
        ScalingDirection direction = desired > current
                ? ScalingDirection.UP
                : desired < current ? ScalingDirection.DOWN : ScalingDirection.HOLD;
        String action = switch (direction) {
            case UP ->
                current == 0
                        ? "activating from zero to " + desired
                        : "scaling up from " + current + " to " + desired + " at once";
            case DOWN -> "scaling down from " + current + " to " + desired;
            case HOLD -> "holding " + current;
        };
        String reason = measured + "; " + action + (note == null ? "" : ": " + note) + bound;
        return new ScalingDecision(current, desired, direction, limit, reason, available, need, null);
    }

    private static String describe(ScalingPolicy policy, BacklogSample sample, ReplicaNeed need) {
        StringBuilder text = new StringBuilder(sample.describeOutstanding());
        if (sample.note() != null) {
            text.append(" [").append(sample.note()).append(']');
        }
        text.append(" needs ")
                .append(decimal(need.backlogReplicas()))
                .append(" replicas at ")
                .append(policy.targetBacklogPerReplica())
                .append(" per replica");
        if (need.busyReplicas() != null && need.busyReplicas() > need.backlogReplicas()) {
            text.append(", ")
                    .append(decimal(need.busyReplicas()))
                    .append(" busy at concurrency ")
                    .append(policy.concurrencyPerReplica());
        }
        if (need.arrivalReplicas() != null) {
            RateEstimate estimate = need.rates();
            text.append(need.arrivalsDominate() ? "; arrivals need more: " : "; arrivals need ")
                    .append(decimal(need.arrivalReplicas()));
            if (need.arrivalBasis() == ReplicaNeed.ArrivalBasis.CAPACITY) {
                text.append(" (")
                        .append(decimal(need.expectedArrivals()))
                        .append(" jobs/s expected in ")
                        .append(policy.forecastHorizon().toSeconds())
                        .append(" s");
                if (estimate.trendPerSecondSquared() > 0) {
                    text.append(", rising ")
                            .append(decimal2(estimate.trendPerSecondSquared()))
                            .append(" jobs/s per s");
                }
                text.append(", at ")
                        .append(decimal(estimate.completionsPerReplicaSecond()))
                        .append(" jobs/s per replica (")
                        .append(estimate.capacitySource())
                        .append("))");
            } else if (estimate.capacityKnown()) {
                text.append(" (the backlog once pods are up: ")
                        .append(decimal(need.expectedArrivals()))
                        .append(" jobs/s expected, ")
                        .append(decimal(sample.readyReplicas() * estimate.completionsPerReplicaSecond()))
                        .append(" served by the ready replicas, for ")
                        .append(policy.podStartup().toSeconds())
                        .append(" s of start-up)");
            } else {
                text.append(" (none ready yet: the backlog once pods are up, ")
                        .append(decimal(need.expectedArrivals()))
                        .append(" jobs/s arriving for ")
                        .append(policy.podStartup().toSeconds())
                        .append(" s of start-up)");
            }
        }
        if (policy.hasDrainTarget()) {
            RateEstimate estimate = need.rates();
            if (need.drainReplicas() != null) {
                text.append(need.drainDominates() ? "; the drain target needs more: " : "; the drain target needs ")
                        .append(decimal(need.drainReplicas()))
                        .append(" (clear the undelivered in ")
                        .append(policy.targetDrain().toSeconds())
                        .append(" s at ")
                        .append(decimal(estimate.completionsPerReplicaSecond()))
                        .append(" jobs/s per replica (")
                        .append(estimate.capacitySource())
                        .append(") while ")
                        .append(decimal(estimate.arrivalsToServe()))
                        .append(" jobs/s arrive)");
            } else {
                text.append("; drain target not computed (")
                        .append(estimate == null ? "no rates" : estimate.missing())
                        .append(')');
            }
        }
        return text.toString();
    }

    /** Any positive need is at least one replica: a single job activates a pool whatever the target. */
    private static int roundUp(double replicas) {
        if (replicas <= 0) {
            return 0;
        }
        return Math.max(1, (int) Math.ceil(Math.min(replicas, CEILING) - EPSILON));
    }

    private static String decimal(double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }

    private static String decimal2(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }

    private static String percent(double fraction) {
        return String.format(Locale.ROOT, "%.0f %%", fraction * 100);
    }
}
