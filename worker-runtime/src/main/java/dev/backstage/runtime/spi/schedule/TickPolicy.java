package dev.backstage.runtime.spi.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The missed-tick policy, as Kubernetes CronJob's {@code startingDeadlineSeconds}: of the ticks that came due since
 * the last handled one, only the latest is fired, and only while it is no older than the starting deadline; the
 * others are counted as missed. A scheduler that was down never fires a storm of old ticks.
 *
 * <p>A tick that is only a little late ({@link #CATCH_UP} or less, and within the starting deadline) is never passed
 * over: when a slow turn lets a per-second schedule's next tick come due before the previous one fired, both fire,
 * oldest first. Only ticks older than that follow the latest-only rule.
 *
 * <p>A scheduler whose broker failed or answered slowly (a failover) passes {@link #OUTAGE_CATCH_UP} instead: the
 * ticks that came due while it kept trying are each fired, in order, once the broker answers again, as long as the
 * oldest is at most that late (and within the starting deadline). A longer outage follows the latest-only rule.
 * {@link TickCatchUp} says which of the two a schedule gets, for every scheduler.
 */
public final class TickPolicy {
    /** Counting missed ticks stops here (a per-second schedule after a long outage); the figure is then a floor. */
    static final long COUNT_LIMIT = 100_000;
    /** Ticks at most this late are each fired, in order, rather than passed over for the latest. */
    public static final Duration CATCH_UP = Duration.ofSeconds(5);
    /**
     * Ticks at most this late are each fired, in order, by a scheduler that was running but could not reach its
     * broker: longer than a Redis Cluster failover with its default {@code cluster-node-timeout} (15 s) or a Sentinel
     * failover with the default {@code down-after-milliseconds} (30 s), plus the election and the reconnect.
     */
    public static final Duration OUTAGE_CATCH_UP = Duration.ofSeconds(60);

    private TickPolicy() {}

    /**
     * @param since ticks at or before this were handled already (the last handled tick, or a start boundary)
     * @param now   the scheduler's clock
     */
    public static TickDecision decide(Schedule schedule, Instant since, Instant now) {
        return decide(schedule, since, now, CATCH_UP);
    }

    /**
     * @param catchUp ticks at most this late are each fired, oldest first ({@link #CATCH_UP}, or
     *                {@link #OUTAGE_CATCH_UP} after the broker failed or was slow)
     */
    public static TickDecision decide(Schedule schedule, Instant since, Instant now, Duration catchUp) {
        Optional<Instant> next = schedule.cron().next(now, schedule.zone());
        Optional<Instant> latest = schedule.cron().latest(now, schedule.zone());
        if (latest.isEmpty() || !latest.get().isAfter(since)) {
            return new TickDecision(Optional.empty(), 0, Optional.empty(), since, next);
        }
        Duration deadline = schedule.startingDeadline();
        Instant oldest = schedule.cron().next(since, schedule.zone()).orElseThrow(); // due: latest is after since
        Duration late = Duration.between(oldest, now);
        if (oldest.isBefore(latest.get())
                && late.compareTo(catchUp) <= 0
                && (deadline == null || late.compareTo(deadline) <= 0)) {
            return new TickDecision(Optional.of(oldest), 0, Optional.empty(), oldest, next);
        }
        long due = countDue(schedule, since, latest.get());
        if (deadline != null && Duration.between(latest.get(), now).compareTo(deadline) > 0) {
            return new TickDecision(Optional.empty(), due, latest, latest.get(), next);
        }
        return new TickDecision(latest, due - 1, Optional.empty(), latest.get(), next);
    }

    /** Where a scheduler without a record of its last tick starts: the latest tick within the deadline may fire. */
    public static Instant startBoundary(Schedule schedule, Instant now) {
        return schedule.startingDeadline() == null ? now : now.minus(schedule.startingDeadline());
    }

    /** The number of ticks in {@code (since, latest]} (at least 1: {@code latest} is one). */
    private static long countDue(Schedule schedule, Instant since, Instant latest) {
        long count = 0;
        Instant cursor = since;
        while (count < COUNT_LIMIT) {
            Optional<Instant> tick = schedule.cron().next(cursor, schedule.zone());
            if (tick.isEmpty() || tick.get().isAfter(latest)) {
                break;
            }
            count++;
            cursor = tick.get();
        }
        return Math.max(1, count);
    }
}
