package dev.backstage.runtime.spi.schedule;

import com.cronutils.model.Cron;
import com.cronutils.model.definition.CronDefinition;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;

/**
 * A cron expression in the seeds' syntax (docs/wire-format.md), parsed and evaluated by cron-utils: five fields
 * {@code minute hour day-of-month month day-of-week} ({@code *}, lists, ranges, {@code /step}; day of week 0-7 with
 * 0 and 7 = Sunday), optionally a sixth leading {@code second} field, or a nickname ({@code @yearly},
 * {@code @annually}, {@code @monthly}, {@code @weekly}, {@code @daily}, {@code @midnight}, {@code @hourly}).
 *
 * <p>Like the seeds, a day-of-month and a day-of-week restriction must both match ({@code 0 0 13 * 5} is Friday the
 * 13th), where Vixie cron would accept either.
 */
public final class CronExpression {
    private static final CronParser FIVE_FIELDS = new CronParser(definition(false));
    private static final CronParser SIX_FIELDS = new CronParser(definition(true));

    private final String text;
    private final ExecutionTime execution;
    private final ChronoUnit granularity;

    private CronExpression(String text, Cron cron, ChronoUnit granularity) {
        this.text = text;
        this.execution = ExecutionTime.forCron(cron);
        this.granularity = granularity;
    }

    /**
     * Parses {@code text}.
     *
     * @throws InvalidScheduleException with a one-line message that says what is wrong and what is accepted
     */
    public static CronExpression parse(String text) {
        if (text == null || text.isBlank()) {
            throw new InvalidScheduleException("cron expression is empty: " + SYNTAX);
        }
        String trimmed = text.trim().replaceAll("\\s+", " ");
        int fields = trimmed.startsWith("@") ? 1 : trimmed.split(" ").length;
        CronParser parser = fields == 6 ? SIX_FIELDS : FIVE_FIELDS;
        if (fields != 1 && fields != 5 && fields != 6) {
            throw new InvalidScheduleException(
                    "cron expression '" + trimmed + "' has " + fields + " fields: " + SYNTAX);
        }
        try {
            return new CronExpression(
                    trimmed, parser.parse(trimmed), fields == 6 ? ChronoUnit.SECONDS : ChronoUnit.MINUTES);
        } catch (IllegalArgumentException e) {
            String reason = Objects.requireNonNullElse(e.getMessage(), e.toString())
                    .replaceAll("\\s+", " ")
                    .trim();
            throw new InvalidScheduleException(
                    "cron expression '" + trimmed + "' is invalid (" + reason + "): " + SYNTAX);
        }
    }

    static final String SYNTAX = "use 5 fields 'minute hour day-of-month month day-of-week' (e.g. '*/5 * * * *'),"
            + " 6 with a leading seconds field, or @hourly/@daily/@weekly/@monthly/@yearly";

    /**
     * The first tick strictly after {@code after}, in {@code zone}; empty when the expression never fires again. Ticks
     * are whole seconds: {@code after} is cut to its second first (cron-utils keeps the fraction, so a tick computed
     * from 00:00:00.400 fell on 00:00:01.400, and every later one with it).
     */
    public Optional<Instant> next(Instant after, ZoneId zone) {
        return execution
                .nextExecution(ZonedDateTime.ofInstant(after, zone).truncatedTo(ChronoUnit.SECONDS))
                .map(ZonedDateTime::toInstant);
    }

    /** The latest tick at or before {@code atOrBefore}, in {@code zone}. */
    public Optional<Instant> latest(Instant atOrBefore, ZoneId zone) {
        ZonedDateTime at = ZonedDateTime.ofInstant(atOrBefore, zone).truncatedTo(granularity);
        if (execution.isMatch(at)) {
            return Optional.of(at.toInstant());
        }
        return execution.lastExecution(at).map(ZonedDateTime::toInstant);
    }

    public String text() {
        return text;
    }

    @Override
    public String toString() {
        return text;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof CronExpression that && that.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    private static CronDefinition definition(boolean seconds) {
        CronDefinitionBuilder builder = CronDefinitionBuilder.defineCron();
        if (seconds) {
            builder = builder.withSeconds()
                    .withValidRange(0, 59)
                    .withStrictRange()
                    .and();
        }
        builder = builder.withMinutes()
                .withValidRange(0, 59)
                .withStrictRange()
                .and()
                .withHours()
                .withValidRange(0, 23)
                .withStrictRange()
                .and()
                .withDayOfMonth()
                .withValidRange(1, 31)
                .withStrictRange()
                .and()
                .withMonth()
                .withValidRange(1, 12)
                .withStrictRange()
                .and()
                .withDayOfWeek()
                .withValidRange(0, 7)
                .withMondayDoWValue(1)
                .withIntMapping(7, 0)
                .withStrictRange()
                .and()
                .matchDayOfWeekAndDayOfMonth();
        if (!seconds) {
            builder = builder.withSupportedNicknameYearly()
                    .withSupportedNicknameAnnually()
                    .withSupportedNicknameMonthly()
                    .withSupportedNicknameWeekly()
                    .withSupportedNicknameDaily()
                    .withSupportedNicknameMidnight()
                    .withSupportedNicknameHourly();
        }
        return builder.instance();
    }
}
