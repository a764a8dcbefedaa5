package dev.backstage.operator.schedule;

import dev.backstage.operator.events.EventRecorder;
import dev.backstage.operator.model.FiredTick;
import dev.backstage.operator.model.ScheduleSpec;
import dev.backstage.operator.model.ScheduleStatus;
import dev.backstage.runtime.spi.schedule.CronTick;
import dev.backstage.runtime.spi.schedule.Schedule;
import dev.backstage.runtime.spi.schedule.TickCatchUp;
import dev.backstage.runtime.spi.schedule.TickDecision;
import dev.backstage.runtime.spi.schedule.TickPolicy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One schedule at one moment: what is due ({@link TickPolicy}), firing it ({@link CronTick}, through the caller),
 * and the schedule's next status. The status is the schedule's memory across operators: a new leader continues
 * from {@code lastFiredTick} / {@code lastSkippedTick}, and a tick the old leader fired but did not record is
 * found claimed and only recorded.
 *
 * <p>A schedule seen for the first time fires nothing: it records its next tick, and firing starts there.
 *
 * <p>Late ticks follow the runtime's rule ({@link TickPolicy}, {@link TickCatchUp}): a turn fires every tick that is
 * due, oldest first, while each is at most {@link TickPolicy#CATCH_UP} late, or {@link TickPolicy#OUTAGE_CATCH_UP}
 * late after the broker failed (the last attempt left {@code lastError}) or answered slower than a turn; older ticks
 * follow the latest-only rule.
 */
final class ScheduleTurn {
    /** Event reasons, a closed set. */
    static final String TICKS_MISSED = "TicksMissed";

    static final String TICK_SKIPPED = "TickSkipped";
    static final String TICK_FAILED = "TickFailed";
    static final String INVALID_SCHEDULE = "InvalidSchedule";
    /**
     * At most this many ticks of one schedule per turn (a per-second schedule after a minute-long outage fires about
     * 60); the rest wait for the next turn.
     */
    static final int MAX_TICKS_PER_TURN = 120;

    private ScheduleTurn() {}

    /** Fires a claimed tick: {@link CronTick#fire} on the topology's broker. */
    @FunctionalInterface
    interface Firing {
        CronTick.Outcome fire(Schedule schedule, Instant tick);
    }

    record Notice(String type, String reason, String message) {}

    record Result(ScheduleStatus status, List<Notice> notices) {}

    /**
     * @param clock read before each decision, so the ticks that came due during a slow call are seen in this turn
     * @param turn  how often the firing turns: a call slower than this leaves ticks due behind it
     */
    static Result run(
            ScheduleSpec spec, Schedule schedule, ScheduleStatus previous, Clock clock, Duration turn, Firing firing) {
        ScheduleStatus status = previous == null ? new ScheduleStatus(spec.getName()) : previous.copy();
        long missed = status.getMissedTicks() == null ? 0 : status.getMissedTicks();
        List<Notice> notices = new ArrayList<>();
        boolean suspended = Boolean.TRUE.equals(spec.getSuspend());
        // The recorded error is the memory of a failed attempt across turns (and operators): the ticks that came
        // due while the broker failed are each fired once it answers, up to TickPolicy.OUTAGE_CATCH_UP late.
        TickCatchUp catchUp = new TickCatchUp(status.getLastError() != null);
        Instant now = clock.instant();
        for (int round = 0; round < MAX_TICKS_PER_TURN && !suspended; round++) {
            Optional<Instant> since = since(status);
            if (since.isEmpty()) {
                break;
            }
            TickDecision decision = TickPolicy.decide(schedule, since.get(), now, catchUp.window());
            if (decision.fire().isPresent()) {
                Instant tick = decision.fire().get();
                try {
                    Instant calledAt = clock.instant();
                    CronTick.Outcome outcome = firing.fire(schedule, tick);
                    now = clock.instant();
                    catchUp.answered(Duration.between(calledAt, now), turn, schedule, decision.handledThrough(), now);
                    status.setLastFiredTick(tick.toString());
                    status.addRecentTick(new FiredTick(tick.toString(), outcome == null ? null : outcome.jobId()));
                    status.setLastError(null);
                    missed += decision.missed();
                    if (decision.missed() > 0) {
                        notices.add(new Notice(
                                EventRecorder.WARNING,
                                TICKS_MISSED,
                                "schedule '" + spec.getName()
                                        + "': " + decision.missed() + " tick(s) came due while no operator fired them"
                                        + " (outage, failover or suspend); fired only the latest, " + tick));
                    }
                    continue; // the next tick may be due too: late ticks are fired in this turn, oldest first
                } catch (CronTick.ClaimedNotPublishedException e) {
                    status.setLastSkippedTick(tick.toString());
                    status.setLastError(e.getMessage());
                    missed += decision.missed() + 1;
                    notices.add(new Notice(EventRecorder.WARNING, TICK_FAILED, e.getMessage()));
                } catch (RuntimeException e) {
                    // Nothing claimed: the tick stays due and is tried again next turn, within its deadline.
                    status.setLastError("tick " + tick + " not fired: " + e.getMessage());
                    notices.add(new Notice(
                            EventRecorder.WARNING,
                            TICK_FAILED,
                            "schedule '" + spec.getName() + "': " + status.getLastError()));
                }
            } else if (decision.tooLate().isPresent()) {
                Instant tick = decision.tooLate().get();
                status.setLastSkippedTick(tick.toString());
                missed += decision.missed();
                notices.add(new Notice(
                        EventRecorder.WARNING,
                        TICK_SKIPPED,
                        "schedule '" + spec.getName()
                                + "': tick " + tick + " not fired, it is past startingDeadlineSeconds="
                                + spec.getStartingDeadlineSeconds() + " (" + decision.missed() + " tick(s) missed)"));
            }
            break;
        }
        status.setMissedTicks(missed);
        status.setNextTick(
                suspended
                        ? null
                        : schedule.cron()
                                .next(now, schedule.zone())
                                .map(Instant::toString)
                                .orElse(null));
        return new Result(status, notices);
    }

    /** Ticks at or before this were handled; empty for a schedule with no record yet (it starts at its next tick). */
    private static Optional<Instant> since(ScheduleStatus status) {
        Instant fired = parse(status.getLastFiredTick());
        Instant skipped = parse(status.getLastSkippedTick());
        if (fired != null || skipped != null) {
            return Optional.of(
                    fired == null ? skipped : skipped == null ? fired : fired.isAfter(skipped) ? fired : skipped);
        }
        Instant next = parse(status.getNextTick());
        return next == null ? Optional.empty() : Optional.of(next.minusMillis(1));
    }

    private static Instant parse(String text) {
        return text == null ? null : Instant.parse(text);
    }
}
