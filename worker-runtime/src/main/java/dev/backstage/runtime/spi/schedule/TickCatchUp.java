package dev.backstage.runtime.spi.schedule;

import java.time.Duration;
import java.time.Instant;

/**
 * Which catch-up one schedule's next {@link TickPolicy#decide} gets: the one rule of every scheduler that fires ticks,
 * the runtime's {@code Scheduler} and the operator's schedule firing alike. Normally {@link TickPolicy#CATCH_UP}; from
 * the moment the broker failed (a claim or a publish threw) or answered slower than one turn (a failover the client
 * rode out) {@link TickPolicy#OUTAGE_CATCH_UP}, until the schedule has caught up (no tick after the last handled one
 * is due yet). The ticks that came due meanwhile are then each fired, oldest first, once each through their claim.
 *
 * <p>One per schedule, used by the one thread that fires it; not thread-safe.
 */
public final class TickCatchUp {
    private boolean outage;

    /** No broker trouble known. */
    public TickCatchUp() {
        this(false);
    }

    /** @param outage the last attempt failed (a scheduler that keeps its state elsewhere, e.g. a recorded error) */
    public TickCatchUp(boolean outage) {
        this.outage = outage;
    }

    /** The catch-up to pass to {@link TickPolicy#decide(Schedule, Instant, Instant, Duration)}. */
    public Duration window() {
        return outage ? TickPolicy.OUTAGE_CATCH_UP : TickPolicy.CATCH_UP;
    }

    /** True from a broker failure or a slow answer until the schedule has caught up. */
    public boolean outage() {
        return outage;
    }

    /** The claim or the publish of a tick failed: the ticks due meanwhile get the outage catch-up. */
    public void failed() {
        outage = true;
    }

    /**
     * A tick was fired or found fired.
     *
     * @param took           how long the claim and publish took; longer than {@code turn} leaves ticks due behind it
     * @param turn           the scheduler's turn (how often it looks for due ticks)
     * @param handledThrough ticks at or before this are handled now
     * @param now            the scheduler's clock after the call
     */
    public void answered(Duration took, Duration turn, Schedule schedule, Instant handledThrough, Instant now) {
        outage = took.compareTo(turn) > 0 || (outage && !caughtUp(schedule, handledThrough, now));
    }

    /** True when no tick after {@code handledThrough} is due yet at {@code now}. */
    static boolean caughtUp(Schedule schedule, Instant handledThrough, Instant now) {
        return schedule.cron()
                .next(handledThrough, schedule.zone())
                .map(next -> next.isAfter(now))
                .orElse(true);
    }
}
