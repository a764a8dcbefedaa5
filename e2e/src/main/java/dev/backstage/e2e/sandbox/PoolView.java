package dev.backstage.e2e.sandbox;

import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import java.util.Locale;

/** One line of the sandbox's live view: the pool as `kubectl get bwp` would show it, over time. */
record PoolView(
        double seconds,
        int replicas,
        int ready,
        int desired,
        long undelivered,
        long inFlight,
        long deadLetters,
        long completed,
        long total,
        String lastScaleReason) {

    static PoolView of(double seconds, BackstageWorkerPool pool, long completed, long total) {
        BackstageWorkerPoolStatus s = pool == null ? null : pool.getStatus();
        if (s == null) {
            return new PoolView(seconds, 0, 0, 0, 0, 0, 0, completed, total, null);
        }
        long undelivered = s.getBacklog() == null || s.getBacklog().getUndelivered() == null
                ? 0
                : s.getBacklog().getUndelivered();
        long inFlight = s.getBacklog() == null || s.getBacklog().getInFlight() == null
                ? 0
                : s.getBacklog().getInFlight();
        long dead = s.getDeadLetters() == null || s.getDeadLetters().getTotal() == null
                ? 0
                : s.getDeadLetters().getTotal();
        return new PoolView(
                seconds,
                n(s.getReplicas()),
                n(s.getReadyReplicas()),
                n(s.getDesiredReplicas()),
                undelivered,
                inFlight,
                dead,
                completed,
                total,
                s.getLastScaleReason());
    }

    private static int n(Integer value) {
        return value == null ? 0 : value;
    }

    static String header() {
        return String.format(
                Locale.ROOT,
                "%7s  %-12s %8s %8s %11s %9s %12s  %s",
                "TIME",
                "REPLICAS",
                "READY",
                "DESIRED",
                "UNDELIVERED",
                "IN FLIGHT",
                "DEAD LETTERS",
                "ORDERS DONE");
    }

    String line() {
        String bar = "#".repeat(Math.max(0, replicas)) + ".".repeat(Math.max(0, desired - replicas));
        return String.format(
                Locale.ROOT,
                "%6.0fs  %-12s %8d %8d %11d %9d %12d  %d/%d",
                seconds,
                replicas + " " + bar,
                ready,
                desired,
                undelivered,
                inFlight,
                deadLetters,
                completed,
                total);
    }
}
