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
 * <p>Capacity, in order of preference:
 * <ol>
 *   <li><b>Measured while busy</b>: completions per ready replica over intervals where jobs were waiting at
 *       both ends. Only then were the replicas busy, so their completions show what a replica <em>can</em>
 *       do. While the queue is empty completions equal arrivals and say nothing about capacity.</li>
 *   <li><b>From job time × concurrency</b> (needs the pool's concurrency and in-flight counts): by Little's
 *       law the mean time a job runs is {@code mean in flight / throughput} (throughput: the mean of jobs
 *       started and finished per second, which keeps a ramp-up from reading as slow jobs), so a replica with
 *       {@code concurrency} slots settles {@code concurrency / job time} per second. Works whenever jobs
 *       flow, even with idle slots. Used only when the job time is shorter than the span observed: Little's
 *       law needs to see jobs finish, and while work ramps up it overstates the job time. Pools with
 *       long jobs need a rate window of a few job times.</li>
 * </ol>
 *
 * <p>The arrival <b>trend</b>: a Theil-Sen line through the arrival rates of the intervals in the newest
 * {@link #TREND_WINDOW} of the window, so the decider can size for the rate expected when new pods are ready.
 */
public final class RateEstimator {
    /** Intervals needed before the arrival rate's trend is trusted. */
    static final int MIN_TREND_INTERVALS = 3;
    /**
     * The arrival rate's trend is fitted over the newest part of the rate window only: long enough for six
     * regular polls, short enough that a ramp starting after a quiet spell shows within about 15 s.
     */
    static final Duration TREND_WINDOW = Duration.ofSeconds(30);

    /**
     * Rates from the samples that end at {@code endIndex} (inclusive) and start no earlier than
     * {@code window} before it. Pairs of consecutive available samples are the unit; a pair that spans an
     * unavailable sample or a counter reset is skipped.
     *
     * @param concurrencyPerReplica the pool's worker concurrency, or {@code null} if unknown
     */
    public RateEstimate estimate(SampleHistory history, int endIndex, Duration window, Integer concurrencyPerReplica) {
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
        double completedWithInFlight = 0;
        double startedWithInFlight = 0;
        double inFlightSeconds = 0;
        double inFlightSpan = 0;
        boolean anyCounter = false;
        Instant now = history.get(endIndex).at();
        Instant trendCutoff = window.compareTo(TREND_WINDOW) <= 0 ? cutoff : now.minus(TREND_WINDOW);
        List<double[]> intervalRates = new ArrayList<>(); // {mid-time in seconds before now (<= 0), jobs/s}
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
                        -Duration.between(from.at(), now).toNanos() / 1e9 + seconds / 2, arrivedDelta / seconds});
            }
            arrived += arrivedDelta;
            arrivalSeconds += seconds;
            if (busyThroughout(from, to)) {
                completedWhileBusy += completedDelta;
                busyReplicaSeconds += (from.readyReplicas() + to.readyReplicas()) / 2.0 * seconds;
            }
            if (from.inFlightKnown() && to.inFlightKnown()) {
                completedWithInFlight += completedDelta;
                startedWithInFlight += completedDelta + to.inFlight() - from.inFlight();
                inFlightSeconds += (from.inFlight() + to.inFlight()) / 2.0 * seconds;
                inFlightSpan += seconds;
            }
        }
        if (!anyCounter) {
            return RateEstimate.unknown("no arrival or completion counter in the last " + window.toSeconds() + " s");
        }
        double arrivalRate = arrived / arrivalSeconds;
        Trend trend = trend(intervalRates, arrivalRate, latestArrivals, latestSeconds);
        latestArrivals = significantStep(latestArrivals, latestSeconds, arrivalRate);
        if (busyReplicaSeconds > 0 && completedWhileBusy > 0) {
            return new RateEstimate(arrivalRate, latestArrivals, completedWhileBusy / busyReplicaSeconds,
                    RateEstimate.MEASURED_WHILE_BUSY, null, trend.now(), trend.slope());
        }
        // Jobs through the window: the mean of those that started and those that finished in it, so work that
        // is ramping up (many started, few finished yet) does not read as slow jobs.
        double jobsThrough = (completedWithInFlight + startedWithInFlight) / 2;
        if (concurrencyPerReplica != null && completedWithInFlight > 0 && inFlightSeconds > 0
                && inFlightSeconds / jobsThrough <= inFlightSpan) {
            double jobSeconds = inFlightSeconds / jobsThrough;
            return new RateEstimate(arrivalRate, latestArrivals, concurrencyPerReplica / jobSeconds,
                    RateEstimate.FROM_JOB_TIME, null, trend.now(), trend.slope());
        }
        if (busyReplicaSeconds > 0) {
            return new RateEstimate(arrivalRate, latestArrivals, 0.0, null,
                    "busy replicas completed nothing in the last " + window.toSeconds() + " s", trend.now(),
                    trend.slope());
        }
        return new RateEstimate(arrivalRate, latestArrivals, null, null,
                "replicas were not seen busy with jobs waiting in the last " + window.toSeconds() + " s"
                        + (concurrencyPerReplica == null ? " and the concurrency is unknown" : ""),
                trend.now(), trend.slope());
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

    /** The arrival rate's straight line through the window: its value now and its slope (never negative). */
    private record Trend(double now, double slope) {}

    /**
     * A Theil-Sen line through the intervals' arrival rates: the slope is the median of the slopes between every
     * two intervals, so one odd interval (a burst, a step that has only just begun) does not tilt it; a step
     * reads as a slope only once it fills half the window. A falling rate counts as flat (slope 0): the
     * forecast is for scaling up, and scaling down already waits through its window. The value now is the
     * median of the rates carried forward along that slope (with slope 0, the median rate). Fewer than three
     * intervals: no line, the window's mean rate and slope 0.
     *
     * <p>When the newest interval saw fewer arrivals than the line predicts for it, beyond chance (three standard
     * deviations of a Poisson count, plus one job), the line is out of date (arrivals stopped or fell): the
     * newest interval's rate is the value now, with no slope.
     */
    private static Trend trend(List<double[]> points, double meanRate, Double latestRate, double latestSeconds) {
        if (points.size() < MIN_TREND_INTERVALS) {
            return new Trend(meanRate, 0);
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
        double slope = slopes.isEmpty() ? 0 : Math.max(0, median(slopes));
        List<Double> carried = new ArrayList<>(points.size());
        for (double[] point : points) {
            carried.add(point[1] - slope * point[0]);
        }
        double now = Math.max(0, median(carried));
        if (latestRate != null) {
            double expected = Math.max(0, now + slope * points.get(0)[0]) * latestSeconds;
            double observed = latestRate * latestSeconds;
            if (observed < expected - 3 * Math.sqrt(expected) - 1) {
                return new Trend(latestRate, 0);
            }
        }
        return new Trend(now, slope);
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
