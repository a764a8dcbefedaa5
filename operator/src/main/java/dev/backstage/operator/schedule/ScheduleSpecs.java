package dev.backstage.operator.schedule;

import dev.backstage.operator.model.ScheduleSpec;
import dev.backstage.runtime.spi.schedule.InvalidScheduleException;
import dev.backstage.runtime.spi.schedule.Schedule;
import java.time.Duration;

/** A topology's {@code spec.schedules[]} entry as the runtime's {@link Schedule}: one parser for both sides. */
public final class ScheduleSpecs {
    private ScheduleSpecs() {}

    /**
     * @throws InvalidScheduleException (one line, with the fix) for a bad expression, time zone or payload
     */
    public static Schedule toSchedule(ScheduleSpec spec) {
        Long deadline = spec.getStartingDeadlineSeconds();
        return Schedule.of(
                spec.getName(),
                spec.getSchedule(),
                spec.getTimeZone(),
                spec.getTask(),
                spec.getQueue(),
                spec.getPayload() == null || spec.getPayload().isNull()
                        ? null
                        : spec.getPayload().toString(),
                deadline == null ? null : Duration.ofSeconds(deadline));
    }
}
