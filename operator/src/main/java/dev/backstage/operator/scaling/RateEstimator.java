package dev.backstage.operator.scaling;

import java.time.Duration;
import java.time.Instant;

/**
 * Estimates the arrival rate and the per-replica completion rate from backlog samples.
 *
 * <p>Only one cumulative counter is needed: work is conserved, so between two samples
 * {@code arrived - completed = change in outstanding}, and the missing counter follows from the other.
 * (Jobs removed without being processed, e.g. a trimmed stream, show up as completions.)
 *
 * <p>The per-replica rate is measured only over intervals where jobs were waiting at both ends: only then
 * were the replicas busy, so their completions show what a replica <em>can</em> do. While the queue is
 * empty, completions equal arrivals and say nothing about capacity; dividing them by the replica count
 * would under-rate a replica and over-scale the pool.
 */
public final class RateEstimator {

    /**
     * Rates from the samples that end at {@code endIndex} (inclusive) and start no earlier than
     * {@code window} before it. Pairs of consecutive available samples are the unit; a pair that spans an
     * unavailable sample or a counter reset is skipped.
     */
    public RateEstimate estimate(SampleHistory history, int endIndex, Duration window) {
        if (endIndex < 1) {
            return RateEstimate.unknown("one sample only, no rate yet");
        }
        Instant cutoff = history.get(endIndex).at().minus(window);
        double arrived = 0;
        double arrivalSeconds = 0;
        double completedWhileBusy = 0;
        double busyReplicaSeconds = 0;
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
            anyCounter = true;
            arrived += arrivedDelta;
            arrivalSeconds += seconds;
            if (busyThroughout(from, to)) {
                completedWhileBusy += completedDelta;
                busyReplicaSeconds += (from.readyReplicas() + to.readyReplicas()) / 2.0 * seconds;
            }
        }
        if (!anyCounter) {
            return RateEstimate.unknown("no arrival or completion counter in the last " + window.toSeconds() + " s");
        }
        Double arrivalRate = arrived / arrivalSeconds;
        if (busyReplicaSeconds == 0) {
            return new RateEstimate(arrivalRate, null,
                    "replicas were not seen busy with jobs waiting in the last " + window.toSeconds() + " s");
        }
        if (completedWhileBusy == 0) {
            return new RateEstimate(arrivalRate, 0.0, "busy replicas completed nothing in the last "
                    + window.toSeconds() + " s");
        }
        return new RateEstimate(arrivalRate, completedWhileBusy / busyReplicaSeconds, null);
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
