package dev.backstage.operator.schedule;

import dev.backstage.operator.events.EventRecorder;
import dev.backstage.operator.model.BackstageTopologyStatus;
import dev.backstage.operator.model.ScheduleSpec;
import dev.backstage.operator.model.ScheduleStatus;
import dev.backstage.operator.status.StatusFields;
import dev.backstage.runtime.spi.schedule.InvalidScheduleException;
import dev.backstage.runtime.spi.schedule.Schedule;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One turn of all of a topology's schedules, as the status fields the schedule firing owns: {@code schedules} (one
 * {@link ScheduleTurn} each), {@code scheduleSummary} and {@code lastFiredTick}; all three absent when the topology
 * has no schedules. Fires through the caller; touches no other status field.
 */
final class ScheduleStatuses {
    /** The schedule firing's status fields: no one else writes them, and it writes no other. */
    static final StatusFields OWNED =
            new StatusFields(Set.of("schedules", "scheduleSummary", "lastFiredTick"), Set.of());

    private ScheduleStatuses() {}

    /**
     * Sets the owned fields of {@code status} (a copy, changed in place) for this turn.
     *
     * @param clock   the firing's clock, read before each decision
     * @param turn    how often the firing turns
     *
     * @param notices receives what to tell the user (log and Event)
     */
    static void apply(
            BackstageTopologyStatus status,
            List<ScheduleSpec> specs,
            Clock clock,
            Duration turn,
            List<ScheduleTurn.Notice> notices,
            ScheduleTurn.Firing firing) {
        List<ScheduleStatus> statuses = specs.isEmpty() ? null : next(status, specs, clock, turn, notices, firing);
        status.setSchedules(statuses);
        status.setScheduleSummary(specs.isEmpty() ? null : summary(specs));
        status.setLastFiredTick(
                statuses == null
                        ? null
                        : statuses.stream()
                                .map(ScheduleStatus::getLastFiredTick)
                                .filter(Objects::nonNull)
                                .map(Instant::parse)
                                .max(Instant::compareTo)
                                .map(Instant::toString)
                                .orElse(null));
    }

    private static String summary(List<ScheduleSpec> specs) {
        long suspended =
                specs.stream().filter(s -> Boolean.TRUE.equals(s.getSuspend())).count();
        return specs.size() + (suspended == 0 ? "" : " (" + suspended + " suspended)");
    }

    private static List<ScheduleStatus> next(
            BackstageTopologyStatus status,
            List<ScheduleSpec> specs,
            Clock clock,
            Duration turn,
            List<ScheduleTurn.Notice> notices,
            ScheduleTurn.Firing firing) {
        List<ScheduleStatus> previous = status.getSchedules() == null ? List.of() : status.getSchedules();
        List<ScheduleStatus> statuses = new ArrayList<>();
        for (ScheduleSpec spec : specs) {
            ScheduleStatus before = previous.stream()
                    .filter(s -> spec.getName().equals(s.getName()))
                    .findFirst()
                    .orElse(null);
            Schedule schedule;
            try {
                schedule = ScheduleSpecs.toSchedule(spec);
            } catch (InvalidScheduleException e) {
                // Only without the admission webhook: the CRD cannot parse cron expressions.
                ScheduleStatus invalid = before == null ? new ScheduleStatus(spec.getName()) : before.copy();
                invalid.setLastError(e.getMessage());
                invalid.setNextTick(null);
                if (before == null || !e.getMessage().equals(before.getLastError())) {
                    notices.add(new ScheduleTurn.Notice(
                            EventRecorder.WARNING, ScheduleTurn.INVALID_SCHEDULE, e.getMessage()));
                }
                statuses.add(invalid);
                continue;
            }
            ScheduleTurn.Result result = ScheduleTurn.run(spec, schedule, before, clock, turn, firing);
            notices.addAll(result.notices());
            statuses.add(result.status());
        }
        return statuses;
    }
}
