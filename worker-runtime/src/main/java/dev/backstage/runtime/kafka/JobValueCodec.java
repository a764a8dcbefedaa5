package dev.backstage.runtime.kafka;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import dev.backstage.runtime.api.Backoff;
import dev.backstage.runtime.api.JobMeta;
import dev.backstage.runtime.spi.OutgoingJob;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;

/**
 * Reads and writes Kafka job values and dead-letter values (WIRE.md §4, §8).
 *
 * <p>Reading streams through the JSON once and cuts the payload out of the text as it is, so the handler
 * gets the producer's bytes (no re-serialisation, no float rounding). It accepts what the seed SDKs write:
 * missing {@code deliveryCount} (1), missing {@code payload} (JSON null), and {@code meta} keys spelled
 * {@code attempts}/{@code backoff}/{@code timeout} or Go's untagged {@code Attempts}/{@code Backoff}/{@code Timeout}.
 * Unknown fields are ignored. Writing always includes {@code meta} (possibly empty) and {@code jobId}.
 */
public final class JobValueCodec {
    private final ObjectMapper mapper = new ObjectMapper();
    private final JsonFactory json = mapper.getFactory();

    /** A value as read: either a job or the reason it is not one. */
    public sealed interface Decoded permits Valid, Malformed {}

    public record Valid(JobValue job) implements Decoded {}

    /** @param text the value as UTF-8 text, kept for the dead-letter record */
    public record Malformed(String reason, String text) implements Decoded {}

    /** The value for {@code job}; {@code jobId} is written as given (callers assign one to new jobs). */
    public byte[] encode(OutgoingJob job, String jobId) {
        return write(g -> writeJobFields(g, job.taskName(), job.payloadJson(), job.enqueuedAtMs(), job.meta(),
                job.deliveryCount(), jobId));
    }

    public byte[] encodeDeadLetter(JobValue job, String jobId, String error, String originalId, int deliveryCount,
            long deadLetteredAtMs) {
        return write(g -> {
            writeJobFields(g, job.taskName(), job.payloadJson(), job.enqueuedAtMs(), job.meta(), deliveryCount, jobId);
            g.writeStringField("error", error == null ? "" : error);
            g.writeStringField("originalId", originalId);
            g.writeNumberField("deadLetteredAt", deadLetteredAtMs);
        });
    }

    /** A dead-letter value for a record that was not a readable job: its text is kept verbatim. */
    public byte[] encodeMalformedDeadLetter(String rawText, String error, String originalId, long deadLetteredAtMs) {
        return write(g -> {
            g.writeStringField("error", error == null ? "" : error);
            g.writeStringField("originalId", originalId);
            g.writeNumberField("deliveryCount", 1);
            g.writeNumberField("deadLetteredAt", deadLetteredAtMs);
            g.writeStringField("rawValue", rawText);
        });
    }

    public Decoded decode(byte[] value) {
        if (value == null) {
            return new Malformed("record has no value (a tombstone), not a job", "");
        }
        String text = new String(value, StandardCharsets.UTF_8);
        Fields f;
        try {
            f = parse(text);
        } catch (IOException | RuntimeException e) {
            return new Malformed("record value is not a JSON job: " + firstLine(e.getMessage()), text);
        }
        if (f == null) {
            return new Malformed("record value is not a JSON object", text);
        }
        if (f.taskName == null || f.taskName.isEmpty()) {
            return new Malformed("record value has no taskName", text);
        }
        return new Valid(f.job());
    }

    public DeadLetterValue decodeDeadLetter(byte[] value) {
        String text = value == null ? "" : new String(value, StandardCharsets.UTF_8);
        Fields f;
        try {
            f = parse(text);
        } catch (IOException | RuntimeException e) {
            f = null;
        }
        if (f == null) {
            // Not written by a dead-lettering worker: show it as raw text rather than hide it.
            return new DeadLetterValue(null, text, "dead-letter value is not a JSON object", null, null, null);
        }
        JobValue job = f.taskName == null ? null : f.job();
        return new DeadLetterValue(job, job == null ? (f.rawValue == null ? text : f.rawValue) : null, f.error,
                f.originalId, f.deliveryCountRaw, f.deadLetteredAt);
    }

    /** True when {@code text} is exactly one JSON value (what {@code writeRawValue} may embed). */
    boolean isJson(String text) {
        try (JsonParser p = json.createParser(text)) {
            if (p.nextToken() == null) {
                return false;
            }
            p.skipChildren();
            return p.nextToken() == null;
        } catch (IOException e) {
            return false;
        }
    }

    private void writeJobFields(JsonGenerator g, String taskName, String payloadJson, Long enqueuedAtMs, JobMeta meta,
            int deliveryCount, String jobId) throws IOException {
        g.writeStringField("taskName", taskName);
        g.writeFieldName("payload");
        if (!isJson(payloadJson)) {
            throw new IllegalArgumentException("payload of task '" + taskName + "' is not JSON text: "
                    + abbreviate(payloadJson));
        }
        g.writeRawValue(payloadJson);
        if (enqueuedAtMs != null) {
            g.writeNumberField("enqueuedAt", enqueuedAtMs);
        }
        g.writeObjectFieldStart("meta");
        if (meta.attempts() != null) {
            g.writeNumberField("attempts", meta.attempts());
        }
        if (meta.backoff() != null) {
            Backoff b = meta.backoff();
            g.writeObjectFieldStart("backoff");
            g.writeStringField("type", b.type().wire());
            g.writeNumberField("delay", b.delayMs());
            g.writeNumberField("maxDelay", b.wireMaxDelayMs());
            g.writeEndObject();
        }
        if (meta.timeoutMs() != null) {
            g.writeNumberField("timeout", meta.timeoutMs());
        }
        g.writeEndObject();
        g.writeNumberField("deliveryCount", Math.max(1, deliveryCount));
        if (jobId != null) {
            g.writeStringField("jobId", jobId);
        }
    }

    private interface FieldWriter {
        void write(JsonGenerator g) throws IOException;
    }

    private byte[] write(FieldWriter fields) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator g = json.createGenerator(out)) {
            g.writeStartObject();
            fields.write(g);
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // writing to memory: only a bug gets here
        }
        return out.toByteArray();
    }

    /** Everything any of our values may carry; null where absent. */
    private static final class Fields {
        String taskName;
        String payloadJson;
        Long enqueuedAt;
        JobMeta meta = JobMeta.NONE;
        Integer deliveryCountRaw;
        String jobId;
        String error;
        String originalId;
        Long deadLetteredAt;
        String rawValue;

        JobValue job() {
            int count = deliveryCountRaw == null || deliveryCountRaw < 1 ? 1 : deliveryCountRaw;
            return new JobValue(taskName, payloadJson == null ? "null" : payloadJson, enqueuedAt, meta, count, jobId);
        }
    }

    /** Null when the text is JSON but not an object. */
    private Fields parse(String text) throws IOException {
        try (JsonParser p = mapper.createParser(text)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            Fields f = new Fields();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken token = p.nextToken();
                switch (name) {
                    case "taskName" -> f.taskName = token == JsonToken.VALUE_STRING ? p.getText() : null;
                    case "payload" -> {
                        int start = (int) p.currentTokenLocation().getCharOffset();
                        // Strings are read lazily: finish the token so the location is past its end.
                        p.finishToken();
                        p.skipChildren();
                        int end = (int) p.currentLocation().getCharOffset();
                        f.payloadJson = text.substring(start, end);
                    }
                    case "enqueuedAt" -> f.enqueuedAt = longOrNull(p, token);
                    case "deliveryCount" -> {
                        Long n = longOrNull(p, token);
                        f.deliveryCountRaw = n == null ? null : (int) Math.min(Integer.MAX_VALUE, n);
                    }
                    case "jobId" -> f.jobId = token == JsonToken.VALUE_STRING ? p.getText() : null;
                    case "meta" -> {
                        JsonNode node = p.readValueAsTree();
                        f.meta = meta(node);
                    }
                    case "error" -> f.error = token == JsonToken.VALUE_STRING ? p.getText() : null;
                    case "originalId" -> f.originalId = token.isScalarValue() ? p.getText() : null;
                    case "deadLetteredAt" -> f.deadLetteredAt = longOrNull(p, token);
                    case "rawValue" -> f.rawValue = token == JsonToken.VALUE_STRING ? p.getText() : null;
                    default -> p.skipChildren();
                }
            }
            return f;
        }
    }

    private static Long longOrNull(JsonParser p, JsonToken token) throws IOException {
        if (token == JsonToken.VALUE_NUMBER_INT) {
            return p.getLongValue();
        }
        if (token == JsonToken.VALUE_NUMBER_FLOAT) {
            return (long) p.getDoubleValue();
        }
        if (token == JsonToken.VALUE_STRING) {
            try {
                return Long.parseLong(p.getText().trim());
            } catch (NumberFormatException e) {
                return null; // a non-numeric string counts as absent, like a missing field
            }
        }
        p.skipChildren();
        return null;
    }

    private static JobMeta meta(JsonNode node) {
        if (node == null || !node.isObject()) {
            return JobMeta.NONE;
        }
        JsonNode attempts = field(node, "attempts");
        JsonNode timeout = field(node, "timeout");
        return new JobMeta(
                attempts != null && attempts.canConvertToInt() ? attempts.asInt() : null,
                backoff(field(node, "backoff")),
                timeout != null && timeout.isNumber() ? timeout.asLong() : null);
    }

    private static Backoff backoff(JsonNode node) {
        if (node == null || node.getNodeType() != JsonNodeType.OBJECT) {
            return null;
        }
        JsonNode type = field(node, "type");
        JsonNode delay = field(node, "delay");
        JsonNode maxDelay = field(node, "maxDelay");
        long delayMs = delay != null && delay.isNumber() ? Math.max(0, delay.asLong()) : 0;
        long maxMs = maxDelay != null && maxDelay.isNumber() ? maxDelay.asLong() : 0;
        Backoff.Type parsed = type == null ? null : Backoff.Type.fromWire(type.asText());
        // The seed waits 0 for an unknown backoff type (WIRE.md §5.1): a fixed zero wait says the same.
        return parsed == null ? new Backoff(Backoff.Type.FIXED, 0, 0) : new Backoff(parsed, delayMs, maxMs);
    }

    /** The field by its camelCase name or Go's untagged capitalised spelling. */
    private static JsonNode field(JsonNode node, String camel) {
        JsonNode value = node.get(camel);
        if (value != null) {
            return value;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getKey().equalsIgnoreCase(camel)) {
                return e.getValue();
            }
        }
        return null;
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unreadable";
        }
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }

    private static String abbreviate(String text) {
        return text.length() <= 200 ? text : text.substring(0, 200) + "…";
    }
}
