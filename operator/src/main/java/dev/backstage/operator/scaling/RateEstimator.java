package dev.backstage.operator.scaling;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Estimates the arrival rate and a replica's capacity (jobs it can settle per second) from backlog samples.
 *
 * <p>Only one cumulative counter is needed: work is conserved, so between two samples
 * {@code arrived - completed = change in outstanding}, and the missing counter follows from the other.
 * (Jobs removed without being processed, e.g. a trimmed stream, show up as completions.)
 *
 * <p>A replica's capacity, from two measurements:
 * <ul>
 *   <li><b>Measured while busy</b>: completions per ready replica over intervals where jobs were waiting at
 *       both ends <em>and the ready count did not change</em>. Only then were the replicas counted busy for
 *       the whole interval, so their completions show what a replica <em>can</em> do. An interval in which
 *       pods became ready (or went away) is skipped: counting its replicas as the mean of both ends credits
 *       pods that became ready at its end with half an interval of work they never did, and reads a
 *       replica's rate far too low right after a scale-up. While the queue is empty completions equal
 *       arrivals and say nothing about capacity.</li>
 *   <li><b>From job time × concurrency</b> (needs the pool's concurrency and in-flight counts): by Little's
 *       law the mean time a job runs is {@code mean in flight / throughput} (throughput: the mean of jobs
 *       started and finished per second, which keeps a ramp-up from reading as slow jobs), so a replica with
 *       {@code concurrency} slots settles {@code concurrency / job time} per second. Works whenever jobs
 *       flow, even with idle slots. Used only when the job time is shorter than the span observed: Little's
 *       law needs to see jobs finish, and while work ramps up it overstates the job time. Pools with
 *       long jobs need a rate window of a few job times.</li>
 * </ul>
 * When both exist they are <b>reconciled</b>: within {@link #AGREEMENT} of each other, their mean weighted by the
 * jobs each saw settle; further apart, the busy measurement (a direct observation: the slots the concurrency
 * promises were evidently not all working, e.g. a prefetch limit) and the reason says so. Neither wins silently.
 *
 * <p>The arrival <b>trend</b>, over the intervals in the newest {@link #TREND_WINDOW} of the window, is one of
 * two shapes, whichever fits the intervals' rates better: a <em>line</em> (Theil-Sen), so the decider can size
 * for the rate expected when new pods are ready; or a <em>step</em> (two levels with a significant jump
 * between them), sized for the new level with no slope. A step read as a line would be extrapolated: 10 → 100
 * jobs/s would be forecast at 160-200 jobs/s fifteen seconds on.
 *
 * <p>Kept as one class: the two capacity measurements, their reconciliation and the trend fit read the same sample
 * window and together make one {@link RateEstimate}; much of its length is this description and the reason text each
 * estimate carries.
 */
public final class RateEstimator {
    /** Intervals needed before the arrival rate's trend is trusted. */
    static final int MIN_TREND_INTERVALS = 3;
    /**
     * The arrival rate's trend is fitted over the newest part of the rate window only: long enough for six
     * regular polls, short enough that a ramp starting after a quiet spell shows within about 15 s.
     */
    static final Duration TREND_WINDOW = Duration.ofSeconds(30);
    /** Capacity measurements within this factor of each other are averaged; further apart, the busy one is used. */
    static final double AGREEMENT = 1.5;
    /** A step is the shape only when its absolute residuals are at most this fraction of the line's. */
    static final double STEP_FIT = 0.5;
    /**
     * A level change ({@link #levelSinceChange}) is beyond chance when a count at least as far from the older level
     * is less likely than this: the one-sided tail of three standard deviations.
     */
    static final double LEVEL_CHANGE_TAIL = 0.00135;
    /** Poisson tails are summed exactly up to this mean; beyond it the normal approximation is close enough. */
    static final double POISSON_EXACT_MEAN = 30;
    /** Standard deviations (of Poisson counts) by which two levels must differ to be a step. */
    static final double STEP_SIGMAS = 3;

    /**
     * Rates from the samples that end at {@code endIndex} (inclusive) and start no earlier than
     * {@code window} before it. Pairs of consecutive available samples are the unit; a pair that spans an
     * unavailable sample or a counter reset is skipped.
     *
     * @param concurrencyPerReplica the pool's worker concurrency, or {@code null} if unknown
     */
    public RateEstimate estimate(SampleHistory history, int endIndex, Duration window, Integer concurrencyPerReplica) {
        return estimate(history, endIndex, window, concurrencyPerReplica, false);
    }

    /**
     * @param lagHoldsInFlight the undelivered count is a Kafka lag: it holds the records being processed, so jobs
     *                         waited only where it exceeded what the ready replicas run at once ({@code ready x
     *                         concurrency}); without the concurrency no interval counts as busy
     */
    public RateEstimate estimate(
            SampleHistory history,
            int endIndex,
            Duration window,
            Integer concurrencyPerReplica,
            boolean lagHoldsInFlight) {
        if (endIndex < 1) {
            return RateEstimate.unknown("one sample only, no rate yet");
        }
        Instant cutoff = history.get(endIndex).at().minus(window);
        double arrived = 0;
        double arrivalSeconds = 0;
        Double latestArrivals = null;
        double latestSeconds = 0;
        double completedWhileBusy = 0;
        double busyReplicaSeconds = 0;
        boolean busyWhileReadyChanged = false;
        double completedWithInFlight = 0;
        double startedWithInFlight = 0;
        double inFlightSeconds = 0;
        double inFlightSpan = 0;
        boolean anyCounter = false;
        Instant now = history.get(endIndex).at();
        Instant trendCutoff = window.compareTo(TREND_WINDOW) <= 0 ? cutoff : now.minus(TREND_WINDOW);
        // {mid-time in seconds before now (<= 0), jobs/s, seconds}, newest first
        List<double[]> intervalRates = new ArrayList<>();
        // {jobs arrived, seconds} of every interval in the window, newest first
        List<double[]> windowCounts = new ArrayList<>();
        for (int i = endIndex; i >= 1; i--) {
            BacklogSample from = history.get(i - 1);
            BacklogSample to = history.get(i);
            if (from.at().isBefore(cutoff)) {
                break;
            }
            if (!from.available() || !to.available()) {
                continue;
            }
            double seconds = Duration.between(from.at(), to.at()).toNanos() / 1e9;
            if (seconds <= 0) {
                continue;
            }
            Long arrivedDelta = arrivedBetween(from, to);
            Long completedDelta = completedBetween(from, to);
            if (arrivedDelta == null || completedDelta == null) {
                continue;
            }
            if (!anyCounter && i == endIndex) {
                latestArrivals = arrivedDelta / seconds;
                latestSeconds = seconds;
            }
            anyCounter = true;
            if (!from.at().isBefore(trendCutoff)) {
                intervalRates.add(new double[] {
                    -Duration.between(from.at(), now).toNanos() / 1e9 + seconds / 2, arrivedDelta / seconds, seconds
                });
            }
            windowCounts.add(new double[] {arrivedDelta, seconds});
            arrived += arrivedDelta;
            arrivalSeconds += seconds;
            if (busyThroughout(from, to)
                    && (!lagHoldsInFlight || waitingBeyondSlots(from, to, concurrencyPerReplica))) {
                if (from.readyReplicas() == to.readyReplicas()) {
                    completedWhileBusy += completedDelta;
                    busyReplicaSeconds += to.readyReplicas() * seconds;
                } else {
                    busyWhileReadyChanged = true;
                }
            }
            // Job time only from intervals with work running at both ends: across a start or stop of the flow the
            // straight line between two in-flight counts is far from what ran (1-s jobs stop within a second, not
            // over the 5-s interval), and Little's law reads them as slow or fast jobs.
            if (from.inFlightKnown() && to.inFlightKnown() && from.inFlight() > 0 && to.inFlight() > 0) {
                // Only what the slots can run is running: entries a worker prefetched beyond its concurrency are
                // in flight for the broker but wait in the worker, and Little's law would read that wait as job
                // time (a replica holding 20 prefetched 1-s jobs at 4 jobs/s reads as 5-s jobs, a fifth of its
                // capacity).
                long fromRunning = running(from, concurrencyPerReplica);
                long toRunning = running(to, concurrencyPerReplica);
                completedWithInFlight += completedDelta;
                startedWithInFlight += completedDelta + toRunning - fromRunning;
                inFlightSeconds += (fromRunning + toRunning) / 2.0 * seconds;
                inFlightSpan += seconds;
            }
        }
        if (!anyCounter) {
            return RateEstimate.unknown("no arrival or completion counter in the last " + window.toSeconds() + " s");
        }
        double arrivalRate = arrived / arrivalSeconds;
        Trend trend = trend(intervalRates, arrivalRate, latestArrivals, latestSeconds);
        Double level = levelSinceChange(windowCounts);
        latestArrivals = significantStep(latestArrivals, latestSeconds, arrivalRate);
        Double busyRate = busyReplicaSeconds > 0 ? completedWhileBusy / busyReplicaSeconds : null;
        // Jobs through the window: the mean of those that started and those that finished in it, so work that
        // is ramping up (many started, few finished yet) does not read as slow jobs.
        double jobsThrough = (completedWithInFlight + startedWithInFlight) / 2;
        Double jobTimeRate = null;
        if (concurrencyPerReplica != null
                && completedWithInFlight > 0
                && inFlightSeconds > 0
                && inFlightSeconds / jobsThrough <= inFlightSpan) {
            jobTimeRate = concurrencyPerReplica / (inFlightSeconds / jobsThrough);
        }
        String remembered = null;
        if (busyRate == null && jobTimeRate == null) {
            // Nothing in the window measured a replica: remember what the retained history measured while busy.
            // A replica's capacity is a property of the jobs, not of the last minute; forgetting it made a Kafka
            // pool with slots to spare (lag below ready x concurrency, so never "busy") scale down to its lag,
            // only to scale up again a minute later.
            double[] older = olderBusyMeasurement(history, cutoff, concurrencyPerReplica, lagHoldsInFlight);
            if (older != null) {
                completedWhileBusy = older[0];
                busyRate = older[0] / older[1];
                remembered = ", " + Math.round(now.getEpochSecond() - older[2]) + " s ago (none in the last "
                        + window.toSeconds() + " s)";
            }
        }
        Capacity capacity = reconcile(busyRate, completedWhileBusy, jobTimeRate, completedWithInFlight);
        if (capacity != null && remembered != null) {
            capacity = new Capacity(capacity.perReplica(), capacity.source() + remembered);
        }
        if (capacity != null) {
            return new RateEstimate(
                    arrivalRate,
                    latestArrivals,
                    capacity.perReplica(),
                    capacity.source(),
                    null,
                    trend.now(),
                    trend.slope(),
                    trend.step(),
                    level,
                    busyRate,
                    jobTimeRate);
        }
        if (busyRate != null) {
            return new RateEstimate(
                    arrivalRate,
                    latestArrivals,
                    0.0,
                    null,
                    "busy replicas completed nothing in the last " + window.toSeconds() + " s",
                    trend.now(),
                    trend.slope(),
                    trend.step(),
                    level,
                    busyRate,
                    jobTimeRate);
        }
        return new RateEstimate(
                arrivalRate,
                latestArrivals,
                null,
                null,
                "replicas were not seen busy with jobs waiting"
                        + (busyWhileReadyChanged ? " at a steady ready count" : "") + " in the last "
                        + window.toSeconds() + " s"
                        + (concurrencyPerReplica == null ? " and the concurrency is unknown" : ""),
                trend.now(),
                trend.slope(),
                trend.step(),
                level,
                busyRate,
                jobTimeRate);
    }

    /**
     * The busy measurement over the retained intervals that end before {@code cutoff}: {completed, replica-seconds,
     * end of the newest such interval in epoch seconds}, or {@code null} when none was busy at a steady ready count.
     */
    private static double[] olderBusyMeasurement(
            SampleHistory history, Instant cutoff, Integer concurrencyPerReplica, boolean lagHoldsInFlight) {
        double completed = 0;
        double replicaSeconds = 0;
        double newestEnd = Double.NaN;
        for (int i = history.size() - 1; i >= 1; i--) {
            BacklogSample from = history.get(i - 1);
            BacklogSample to = history.get(i);
            if (!from.at().isBefore(cutoff)
                    || !from.available()
                    || !to.available()
                    || from.readyReplicas() != to.readyReplicas()
                    || !busyThroughout(from, to)
                    || (lagHoldsInFlight && !waitingBeyondSlots(from, to, concurrencyPerReplica))) {
                continue;
            }
            Long completedDelta = completedBetween(from, to);
            double seconds = Duration.between(from.at(), to.at()).toNanos() / 1e9;
            if (completedDelta == null || seconds <= 0) {
                continue;
            }
            completed += completedDelta;
            replicaSeconds += to.readyReplicas() * seconds;
            if (Double.isNaN(newestEnd)) {
                newestEnd = to.at().getEpochSecond();
            }
        }
        return replicaSeconds > 0 ? new double[] {completed, replicaSeconds, newestEnd} : null;
    }

    /** A replica's capacity and how it was obtained. */
    private record Capacity(double perReplica, String source) {}

    /**
     * The busy measurement and the job-time one, reconciled: both within {@link #AGREEMENT} of each other → their
     * mean weighted by the jobs each saw settle; further apart → the busy one (observed, not inferred); one only →
     * that one. {@code null} when neither is positive.
     */
    private static Capacity reconcile(Double busyRate, double busyJobs, Double jobTimeRate, double jobTimeJobs) {
        boolean busy = busyRate != null && busyRate > 0;
        boolean jobTime = jobTimeRate != null && jobTimeRate > 0;
        if (busy && jobTime) {
            double ratio = Math.max(busyRate, jobTimeRate) / Math.min(busyRate, jobTimeRate);
            if (ratio <= AGREEMENT) {
                double mean = (busyRate * busyJobs + jobTimeRate * jobTimeJobs) / (busyJobs + jobTimeJobs);
                return new Capacity(mean, RateEstimate.RECONCILED);
            }
            return new Capacity(
                    busyRate,
                    RateEstimate.MEASURED_WHILE_BUSY + "; job time x concurrency says "
                            + String.format(java.util.Locale.ROOT, "%.1f", jobTimeRate)
                            + ", so not every slot works (concurrency or prefetch?)");
        }
        if (busy) {
            return new Capacity(busyRate, RateEstimate.MEASURED_WHILE_BUSY);
        }
        if (jobTime) {
            return new Capacity(jobTimeRate, RateEstimate.FROM_JOB_TIME);
        }
        return null;
    }

    /**
     * Jobs per second that arrived between sample {@code endIndex - 1} and {@code endIndex}, or {@code null} when
     * that interval has no usable counter (or there is no interval).
     */
    public Double newestArrivals(SampleHistory history, int endIndex) {
        if (endIndex < 1) {
            return null;
        }
        BacklogSample from = history.get(endIndex - 1);
        BacklogSample to = history.get(endIndex);
        double seconds = Duration.between(from.at(), to.at()).toNanos() / 1e9;
        if (!from.available() || !to.available() || seconds <= 0) {
            return null;
        }
        Long arrived = arrivedBetween(from, to);
        return arrived == null ? null : arrived / seconds;
    }

    /**
     * How long no job arrived before arrivals resumed, when they resumed within {@code within} before sample
     * {@code endIndex} (the newest interval has arrivals, and an interval without any ended no earlier than
     * {@code within} ago); {@code null} otherwise, or when an interval on the way has no usable counter.
     */
    public Duration quietBeforeResuming(SampleHistory history, int endIndex, Duration within) {
        Double newest = newestArrivals(history, endIndex);
        if (newest == null || newest <= 0) {
            return null;
        }
        int i = endIndex - 1;
        for (; i >= 1; i--) {
            Double arrivals = newestArrivals(history, i);
            if (arrivals == null) {
                return null;
            }
            if (arrivals == 0) {
                break;
            }
        }
        if (i < 1 || history.get(i).at().isBefore(history.get(endIndex).at().minus(within))) {
            return null;
        }
        Instant quietEnd = history.get(i).at();
        for (; i >= 1; i--) {
            Double arrivals = newestArrivals(history, i);
            if (arrivals == null || arrivals > 0) {
                break;
            }
        }
        return Duration.between(history.get(i).at(), quietEnd);
    }

    /**
     * The arrival rate's shape through the window: its value now, its slope (never negative), and whether it is a
     * step (then the slope is 0).
     */
    private record Trend(double now, double slope, boolean step) {}

    /**
     * A Theil-Sen line through the intervals' arrival rates: the slope is the median of the slopes between every
     * two intervals, so one odd interval (a burst, a step that has only just begun) does not tilt it. A falling
     * rate counts as flat (slope 0): the forecast is for scaling up, and scaling down already waits through its
     * window. The value now is the median of the rates carried forward along that slope (with slope 0, the median
     * rate). Fewer than three intervals: no line, the window's mean rate and slope 0.
     *
     * <p>A step fits better than the line when the best split of the intervals into an older and a newer level
     * leaves at most {@link #STEP_FIT} of the line's absolute residuals and the levels differ beyond chance
     * ({@link #STEP_SIGMAS} standard deviations of Poisson counts). Then the newer level is the value now, with
     * no slope: the newer intervals' mean, without the oldest of them when there are two or more (that one may
     * straddle the jump, so it is left out of the step's residuals too).
     *
     * <p>When the newest interval saw fewer arrivals than the line predicts for it, beyond chance (three standard
     * deviations of a Poisson count, plus one job), the line is out of date (arrivals stopped or fell): the
     * newest interval's rate is the value now, with no slope.
     */
    private static Trend trend(List<double[]> points, double meanRate, Double latestRate, double latestSeconds) {
        if (points.size() < MIN_TREND_INTERVALS) {
            return new Trend(meanRate, 0, false);
        }
        List<Double> slopes = new ArrayList<>();
        for (int i = 0; i < points.size(); i++) {
            for (int j = i + 1; j < points.size(); j++) {
                double dt = points.get(i)[0] - points.get(j)[0];
                if (dt != 0) {
                    slopes.add((points.get(i)[1] - points.get(j)[1]) / dt);
                }
            }
        }
        double lineSlope = slopes.isEmpty() ? 0 : median(slopes);
        Double stepLevel = stepLevel(points, residuals(points, lineSlope));
        if (stepLevel != null) {
            return new Trend(Math.max(0, stepLevel), 0, true);
        }
        double slope = Math.max(0, lineSlope);
        double now = Math.max(0, intercept(points, slope));
        if (latestRate != null) {
            double expected = Math.max(0, now + slope * points.get(0)[0]) * latestSeconds;
            double observed = latestRate * latestSeconds;
            if (observed < expected - 3 * Math.sqrt(expected) - 1) {
                return new Trend(latestRate, 0, false);
            }
        }
        return new Trend(now, slope, false);
    }

    /** The median of the rates carried forward to now along {@code slope}. */
    private static double intercept(List<double[]> points, double slope) {
        List<Double> carried = new ArrayList<>(points.size());
        for (double[] point : points) {
            carried.add(point[1] - slope * point[0]);
        }
        return median(carried);
    }

    /** Jobs the line with {@code slope} (through the median intercept) misses, summed over the intervals. */
    private static double residuals(List<double[]> points, double slope) {
        double now = intercept(points, slope);
        double sum = 0;
        for (double[] point : points) {
            sum += Math.abs(point[1] - (now + slope * point[0])) * point[2];
        }
        return sum;
    }

    /**
     * The newer level of the best two-level split of {@code points} (newest first), or {@code null} when no split
     * fits clearly better than a line that misses {@code lineResiduals} jobs, or its levels do not differ beyond
     * chance. With two or more newer intervals the oldest of them is left out of the newer level and of the
     * residuals: it may straddle the jump (a step in the middle of a poll interval reads as a rate in between).
     */
    private static Double stepLevel(List<double[]> points, double lineResiduals) {
        int n = points.size();
        double bestResiduals = Double.MAX_VALUE;
        int bestSplit = -1;
        for (int k = 1; k < n; k++) {
            int newerEnd = k >= 2 ? k - 1 : k; // exclusive; the straddling interval is k - 1 when k >= 2
            double newer = level(points, 0, newerEnd);
            double older = level(points, k, n);
            double sum = 0;
            for (int i = 0; i < n; i++) {
                if (i >= newerEnd && i < k) {
                    continue;
                }
                sum += Math.abs(points.get(i)[1] - (i < k ? newer : older)) * points.get(i)[2];
            }
            if (sum < bestResiduals) {
                bestResiduals = sum;
                bestSplit = k;
            }
        }
        if (bestSplit < 0 || bestResiduals > STEP_FIT * lineResiduals) {
            return null;
        }
        int newerEnd = bestSplit >= 2 ? bestSplit - 1 : bestSplit;
        double newerSeconds = seconds(points, 0, newerEnd);
        double olderSeconds = seconds(points, bestSplit, n);
        double newer = level(points, 0, newerEnd);
        double older = level(points, bestSplit, n);
        double pooled = (newer * newerSeconds + older * olderSeconds) / (newerSeconds + olderSeconds);
        double sigma = Math.sqrt(pooled * (1 / newerSeconds + 1 / olderSeconds));
        if (Math.abs(newer - older) <= STEP_SIGMAS * sigma || Math.abs(newer - older) * newerSeconds < 2) {
            return null;
        }
        return newer;
    }

    /**
     * The arrival rate since the newest change of level in the window, or {@code null} when the window shows one
     * level. {@code counts} are the intervals' {jobs, seconds}, newest first. The change is the split into a newer
     * and an older part that two Poisson levels explain best (the largest likelihood ratio against one level); it
     * counts when the newer part's jobs are beyond chance for the older part's rate ({@link #beyondChance}: a
     * one-sided Poisson tail, exact for small counts, so that 70 s without a job after 0.1 jobs/s is a stop, which
     * three standard deviations of a normal approximation would never call one) and differ from it by more than
     * one job. The best of many splits is tested, so a steady rate now and then passes as a change; the newer
     * part's rate is then still a fair estimate of that rate, only from fewer intervals. This is the rate the drain target keeps up with: the window's mean still holds an old level for a whole
     * window after a step, and kept replicas up (and took extra down-moves) that long. On a ramp the best split
     * falls mid-window and the newer part's rate is returned: nearer the rate now than the window's mean.
     */
    static Double levelSinceChange(List<double[]> counts) {
        int n = counts.size();
        double totalJobs = 0;
        double totalSeconds = 0;
        for (double[] count : counts) {
            totalJobs += count[0];
            totalSeconds += count[1];
        }
        if (n < 2 || totalSeconds <= 0) {
            return null;
        }
        double pooled = totalJobs / totalSeconds;
        double newerJobs = 0;
        double newerSeconds = 0;
        double bestRatio = 0;
        double[] best = null; // {newer jobs, newer seconds}
        for (int k = 1; k < n; k++) {
            newerJobs += counts.get(k - 1)[0];
            newerSeconds += counts.get(k - 1)[1];
            double olderJobs = totalJobs - newerJobs;
            double olderSeconds = totalSeconds - newerSeconds;
            double ratio = logRatio(newerJobs, newerSeconds * pooled) + logRatio(olderJobs, olderSeconds * pooled);
            if (ratio > bestRatio) {
                bestRatio = ratio;
                best = new double[] {newerJobs, newerSeconds};
            }
        }
        if (best == null) {
            return null;
        }
        double olderRate = (totalJobs - best[0]) / (totalSeconds - best[1]);
        double expected = olderRate * best[1];
        double observed = best[0];
        if (Math.abs(observed - expected) <= 1) {
            return null;
        }
        return beyondChance(observed, expected) ? observed / best[1] : null;
    }

    /** {@code jobs * ln(jobs / expected)}, 0 for no jobs: a Poisson log-likelihood ratio's term. */
    private static double logRatio(double jobs, double expected) {
        return jobs <= 0 ? 0 : jobs * Math.log(jobs / expected);
    }

    /**
     * A Poisson count {@code observed} is beyond chance for the mean {@code expected}: its one-sided tail is below
     * {@link #LEVEL_CHANGE_TAIL}, summed exactly while the mean is small, else (normal approximation) it lies more
     * than three standard deviations out.
     */
    static boolean beyondChance(double observed, double expected) {
        if (expected > POISSON_EXACT_MEAN) {
            return Math.abs(observed - expected) > 3 * Math.sqrt(expected);
        }
        if (observed < expected) {
            return poissonAtMost((int) Math.floor(observed), expected) < LEVEL_CHANGE_TAIL;
        }
        int below = (int) Math.ceil(observed) - 1;
        return below > 10 * POISSON_EXACT_MEAN || 1 - poissonAtMost(below, expected) < LEVEL_CHANGE_TAIL;
    }

    /** P(X <= k) for X Poisson with mean {@code mean} (small), summed term by term. */
    private static double poissonAtMost(int k, double mean) {
        double term = Math.exp(-mean);
        double sum = term;
        for (int i = 1; i <= k; i++) {
            term *= mean / i;
            sum += term;
        }
        return Math.min(1, sum);
    }

    /** Arrivals per second over points {@code from} (inclusive) to {@code to} (exclusive). */
    private static double level(List<double[]> points, int from, int to) {
        double jobs = 0;
        double seconds = 0;
        for (int i = from; i < to; i++) {
            jobs += points.get(i)[1] * points.get(i)[2];
            seconds += points.get(i)[2];
        }
        return jobs / seconds;
    }

    private static double seconds(List<double[]> points, int from, int to) {
        double seconds = 0;
        for (int i = from; i < to; i++) {
            seconds += points.get(i)[2];
        }
        return seconds;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /**
     * The newest interval's rate if its count is above what the window's rate predicts by more than chance
     * (three standard deviations of a Poisson count, plus one job), else {@code null}.
     */
    private static Double significantStep(Double latestRate, double latestSeconds, double windowRate) {
        if (latestRate == null) {
            return null;
        }
        double expected = windowRate * latestSeconds;
        double observed = latestRate * latestSeconds;
        return observed > expected + 3 * Math.sqrt(expected) + 1 ? latestRate : null;
    }

    /** A Kafka lag above the ready replicas' slots at both ends: records waited beyond those being processed. */
    private static boolean waitingBeyondSlots(BacklogSample from, BacklogSample to, Integer concurrencyPerReplica) {
        return concurrencyPerReplica != null
                && from.undelivered() > (long) from.readyReplicas() * concurrencyPerReplica
                && to.undelivered() > (long) to.readyReplicas() * concurrencyPerReplica;
    }

    /**
     * The sample's in-flight jobs that can be running: at most the ready replicas' slots ({@code ready x
     * concurrency}); the rest were prefetched and wait in a worker. Uncapped when the concurrency is unknown or no
     * replica is ready (then the in-flight jobs are those of pods starting or shutting down).
     */
    private static long running(BacklogSample sample, Integer concurrencyPerReplica) {
        if (concurrencyPerReplica == null || sample.readyReplicas() <= 0) {
            return sample.inFlight();
        }
        return Math.min(sample.inFlight(), (long) sample.readyReplicas() * concurrencyPerReplica);
    }

    /** Jobs were waiting at both ends and someone was there to take them, so every ready replica was busy. */
    private static boolean busyThroughout(BacklogSample from, BacklogSample to) {
        return from.undelivered() > 0 && to.undelivered() > 0 && from.readyReplicas() > 0 && to.readyReplicas() > 0;
    }

    private static Long arrivedBetween(BacklogSample from, BacklogSample to) {
        if (from.arrivedTotal() != null && to.arrivedTotal() != null) {
            long delta = to.arrivedTotal() - from.arrivedTotal();
            return delta < 0 ? null : delta; // counter reset (stream or topic recreated): skip the pair
        }
        Long completed = completedCounter(from, to);
        if (completed == null) {
            return null;
        }
        // Outstanding can fall by more than what completed only if jobs were removed another way (purge);
        // no negative arrivals.
        return Math.max(0, completed + to.outstanding() - from.outstanding());
    }

    private static Long completedBetween(BacklogSample from, BacklogSample to) {
        Long completed = completedCounter(from, to);
        if (completed != null) {
            return completed;
        }
        if (from.arrivedTotal() == null || to.arrivedTotal() == null) {
            return null;
        }
        long arrived = to.arrivedTotal() - from.arrivedTotal();
        if (arrived < 0) {
            return null;
        }
        return Math.max(0, arrived - (to.outstanding() - from.outstanding()));
    }

    private static Long completedCounter(BacklogSample from, BacklogSample to) {
        if (from.completedTotal() == null || to.completedTotal() == null) {
            return null;
        }
        long delta = to.completedTotal() - from.completedTotal();
        return delta < 0 ? null : delta;
    }
}
