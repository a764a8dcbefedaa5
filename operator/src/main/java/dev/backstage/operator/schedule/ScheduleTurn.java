package dev.backstage.operator.schedule;

import dev.backstage.operator.events.EventRecorder;
import dev.backstage.operator.model.FiredTick;
import dev.backstage.operator.model.ScheduleSpec;
import dev.backstage.operator.model.ScheduleStatus;
import dev.backstage.runtime.spi.schedule.CronTick;
import dev.backstage.runtime.spi.schedule.Schedule;
import dev.backstage.runtime.spi.schedule.TickDecision;
import dev.backstage.runtime.spi.schedule.TickPolicy;
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
 */
final class ScheduleTurn {
    /** Event reasons, a closed set. */
    static final String TICKS_MISSED = "TicksMissed";

    static final String TICK_SKIPPED = "TickSkipped";
    static final String TICK_FAILED = "TickFailed";
    static final String INVALID_SCHEDULE = "InvalidSchedule";

    private ScheduleTurn() {}

    /** Fires a claimed tick: {@link CronTick#fire} on the topology's broker. */
    @FunctionalInterface
    interface Firing {
        CronTick.Outcome fire(Schedule schedule, Instant tick);
    }

    record Notice(String type, String reason, String message) {}

    record Result(ScheduleStatus status, List<Notice> notices) {}

    static Result run(ScheduleSpec spec, Schedule schedule, ScheduleStatus previous, Instant now, Firing firing) {
        ScheduleStatus status = previous == null ? new ScheduleStatus(spec.getName()) : previous.copy();
        long missed = status.getMissedTicks() == null ? 0 : status.getMissedTicks();
        List<Notice> notices = new ArrayList<>();
        boolean suspended = Boolean.TRUE.equals(spec.getSuspend());
        Optional<Instant> since = since(status);
        if (since.isPresent() && !suspended) {
            TickDecision decision = TickPolicy.decide(schedule, since.get(), now);
            if (decision.fire().isPresent()) {
                Instant tick = decision.fire().get();
                try {
                    CronTick.Outcome outcome = firing.fire(schedule, tick);
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
