package dev.backstage.runtime.spi.schedule;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.backstage.runtime.spi.BrokerNames;
import java.io.StringWriter;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;

/**
 * One cron schedule: at every tick of {@code cron} in {@code zone}, one job {@code task} on {@code queue} whose payload
 * is the seeds' cron envelope {@code {"taskName":task,"args":args}} (docs/wire-format.md). Shared by the runtime's
 * {@code Scheduler} and the operator's schedule firing, so both compute the same ticks and the same per-tick dedupe
 * key ({@link CronTick}).
 *
 * @param name             unique within the broker prefix: part of the per-tick dedupe key
 * @param argsJson         the envelope's {@code args}, one JSON value (the seeds' default is {@code []})
 * @param startingDeadline how late a tick may still be fired (Kubernetes CronJob's {@code startingDeadlineSeconds});
 *                         {@code null} = no limit
 */
public record Schedule(
        String name,
        CronExpression cron,
        ZoneId zone,
        String task,
        String queue,
        String argsJson,
        Duration startingDeadline) {
    private static final ObjectMapper STRICT_JSON =
            new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    public Schedule {
        BrokerNames.scheduleProblem("schedule", name).ifPresent(problem -> {
            throw new InvalidScheduleException(problem);
        });
        Objects.requireNonNull(cron, "cron");
        zone = zone == null ? ZoneOffset.UTC : zone;
        if (task == null || task.isBlank()) {
            throw new InvalidScheduleException("schedule '" + name + "' has no task: set the task name to enqueue");
        }
        queue = queue == null || queue.isBlank() ? "default" : queue;
        if (!queue.matches("[A-Za-z0-9_.\\-]+")) {
            throw new InvalidScheduleException("schedule '" + name + "': queue name '" + queue
                    + "' may only contain letters, digits, '_', '.' and '-'");
        }
        argsJson = argsJson == null || argsJson.isBlank() ? "[]" : normalised(name, argsJson);
        if (startingDeadline != null && (startingDeadline.isNegative() || startingDeadline.isZero())) {
            throw new InvalidScheduleException("schedule '" + name + "': startingDeadline must be positive, got "
                    + startingDeadline.toSeconds() + "s; leave it unset for no limit");
        }
    }

    /** A schedule from its textual parts (cron expression and zone id are parsed; errors are one line). */
    public static Schedule of(
            String name,
            String cron,
            String zone,
            String task,
            String queue,
            String argsJson,
            Duration startingDeadline) {
        return new Schedule(name, CronExpression.parse(cron), zone(zone), task, queue, argsJson, startingDeadline);
    }

    /** A 5/6-field or @nickname schedule in UTC with no args and no deadline, on the default queue. */
    public static Schedule of(String name, String cron, String task) {
        return of(name, cron, null, task, null, null, null);
    }

    public Schedule inZone(String zoneId) {
        return new Schedule(name, cron, zone(zoneId), task, queue, argsJson, startingDeadline);
    }

    public Schedule onQueue(String value) {
        return new Schedule(name, cron, zone, task, value, argsJson, startingDeadline);
    }

    public Schedule withArgs(String json) {
        return new Schedule(name, cron, zone, task, queue, json, startingDeadline);
    }

    public Schedule withStartingDeadline(Duration value) {
        return new Schedule(name, cron, zone, task, queue, argsJson, value);
    }

    /** Parses an IANA zone id ({@code Europe/Paris}) or offset; {@code null} or blank is UTC. */
    public static ZoneId zone(String zoneId) {
        if (zoneId == null || zoneId.isBlank()) {
            return ZoneOffset.UTC;
        }
        try {
            return ZoneId.of(zoneId.trim());
        } catch (DateTimeException e) {
            throw new InvalidScheduleException("time zone '" + zoneId + "' is unknown: use an IANA zone id such as"
                    + " 'UTC', 'Europe/Paris' or 'America/New_York'");
        }
    }

    /**
     * One JSON value, whitespace dropped, every token otherwise as written: numbers keep their text ({@code 1e-7}
     * stays {@code 1e-7}, {@code 2} stays {@code 2}), as the seed SDKs pass them through.
     */
    private static String normalised(String name, String json) {
        StringWriter out = new StringWriter(json.length());
        try (JsonParser parser = STRICT_JSON.getFactory().createParser(json);
                JsonGenerator generator = STRICT_JSON.getFactory().createGenerator(out)) {
            int depth = 0;
            do {
                JsonToken token = parser.nextToken();
                if (token == null) {
                    throw new JsonParseException(parser, "no JSON value");
                }
                if (token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT) {
                    generator.writeNumber(parser.getText());
                } else {
                    generator.copyCurrentEvent(parser);
                }
                depth += token.isStructStart() ? 1 : token.isStructEnd() ? -1 : 0;
            } while (depth > 0);
            if (parser.nextToken() != null) {
                throw new JsonParseException(parser, "trailing content after the JSON value");
            }
        } catch (java.io.IOException e) {
            throw new InvalidScheduleException("schedule '" + name + "': args must be one JSON value (e.g. [] or"
                    + " [{\"full\":true}]), got '" + json.replaceAll("\\s+", " ") + "'");
        }
        return out.toString();
    }
}
