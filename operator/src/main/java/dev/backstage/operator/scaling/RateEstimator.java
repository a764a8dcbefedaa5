package dev.backstage.operator.scaling;

import java.time.Duration;
import java.time.Instant;

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
 */
public final class RateEstimator {

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
        latestArrivals = significantStep(latestArrivals, latestSeconds, arrivalRate);
        if (busyReplicaSeconds > 0 && completedWhileBusy > 0) {
            return new RateEstimate(arrivalRate, latestArrivals, completedWhileBusy / busyReplicaSeconds,
                    RateEstimate.MEASURED_WHILE_BUSY, null);
        }
        // Jobs through the window: the mean of those that started and those that finished in it, so work that
        // is ramping up (many started, few finished yet) does not read as slow jobs.
        double jobsThrough = (completedWithInFlight + startedWithInFlight) / 2;
        if (concurrencyPerReplica != null && completedWithInFlight > 0 && inFlightSeconds > 0
                && inFlightSeconds / jobsThrough <= inFlightSpan) {
            double jobSeconds = inFlightSeconds / jobsThrough;
            return new RateEstimate(arrivalRate, latestArrivals, concurrencyPerReplica / jobSeconds,
                    RateEstimate.FROM_JOB_TIME, null);
        }
        if (busyReplicaSeconds > 0) {
            return new RateEstimate(arrivalRate, latestArrivals, 0.0, null,
                    "busy replicas completed nothing in the last " + window.toSeconds() + " s");
        }
        return new RateEstimate(arrivalRate, latestArrivals, null, null,
                "replicas were not seen busy with jobs waiting in the last " + window.toSeconds() + " s"
                        + (concurrencyPerReplica == null ? " and the concurrency is unknown" : ""));
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
