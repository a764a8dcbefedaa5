package dev.backstage.runtime.kafka;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.util.TokenBuffer;
import dev.backstage.runtime.core.PayloadTokens;
import dev.backstage.runtime.spi.Backoff;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.OutgoingJob;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Reads and writes Kafka job values and dead-letter values (docs/wire-format.md).
 *
 * <p>Reading streams through the JSON once and cuts the payload out of the text as it is, so the handler
 * gets the producer's bytes (no re-serialisation, no float rounding). It accepts what the seed SDKs write:
 * missing {@code deliveryCount} (1), missing {@code payload} (JSON null), and {@code meta} keys spelled
 * {@code attempts}/{@code backoff}/{@code timeout} or Go's untagged {@code Attempts}/{@code Backoff}/{@code Timeout}.
 * Unknown fields are ignored. Writing always includes {@code meta} (possibly empty) and {@code jobId}.
 */
public final class JobValueCodec {
    private final JsonFactory json = new JsonFactory();

    /** A value as read: either a job or the reason it is not one. */
    public sealed interface Decoded permits Valid, Malformed {}

    /**
     * A job as read. Its fields are read in the one streaming pass; the payload stays a slice of the value
     * ({@link #payloadBytes()}, no copy) and becomes text only if someone asks for the {@link #job()} (a retry or
     * dead-letter copy, a seed-style text payload): a job that just runs never builds that string.
     */
    public static final class Valid implements Decoded {
        private final Fields fields;
        private final ByteBuffer payloadBytes;
        private JobValue job;

        private Valid(Fields fields, ByteBuffer payloadBytes) {
            this.fields = fields;
            this.payloadBytes = payloadBytes;
        }

        /** The payload's tokens, read in the envelope's pass (a new parser per call); null when it carried none. */
        public JsonParser payloadTokens() {
            return fields.payloadTokens == null ? null : fields.payloadTokens.asParser();
        }

        /**
         * The payload as the binder given to {@link #decode(byte[], PayloadTokens.Binder)} bound it in the pass, or
         * {@link PayloadTokens#NOT_BOUND} (also when the task name changed after the payload was bound).
         */
        public Object boundPayload() {
            return fields.boundFor != null && fields.boundFor.equals(fields.taskName) ? fields.bound : PayloadTokens.NOT_BOUND;
        }

        /** The payload's bytes within the record value (a read-only view, no copy); null when it carried none. */
        public ByteBuffer payloadBytes() {
            return payloadBytes == null ? null : payloadBytes.duplicate();
        }

        public String taskName() {
            return fields.taskName;
        }

        public Long enqueuedAtMs() {
            return fields.enqueuedAt;
        }

        public JobMeta meta() {
            return fields.meta;
        }

        public int deliveryCount() {
            return fields.deliveryCount();
        }

        public String jobId() {
            return fields.jobId;
        }

        /** The whole job, payload as text (built on first use; a racing second build gives an equal value). */
        public JobValue job() {
            JobValue j = job;
            if (j == null) {
                if (payloadBytes != null && fields.payloadJson == null) {
                    fields.payloadJson = new String(payloadBytes.array(), payloadBytes.arrayOffset() + payloadBytes.position(),
                            payloadBytes.remaining(), StandardCharsets.UTF_8);
                }
                j = fields.job();
                job = j;
            }
            return j;
        }
    }

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
        return decode(value, null);
    }

    /**
     * As {@link #decode(byte[])}, and when the task name comes before the payload (as this codec writes it), the
     * payload is bound in the same pass by {@code binder} ({@link Valid#boundPayload()}) instead of being kept as
     * tokens. If binding fails the value is read again without it, so the failure is reported where an unbound
     * payload's would be.
     */
    public Decoded decode(byte[] value, PayloadTokens.Binder binder) {
        if (value == null) {
            return new Malformed("record has no value (a tombstone), not a job", "");
        }
        Fields f;
        try {
            try {
                f = parse(value, true, binder);
            } catch (BindFailed e) {
                f = parse(value, true, null);
            }
        } catch (IOException | RuntimeException e) {
            return new Malformed("record value is not a JSON job: " + firstLine(e.getMessage()), text(value));
        }
        if (f == null) {
            return new Malformed("record value is not a JSON object", text(value));
        }
        if (f.taskName == null || f.taskName.isEmpty()) {
            return new Malformed("record value has no taskName", text(value));
        }
        return new Valid(f, f.payloadLength < 0 ? null : ByteBuffer.wrap(value, f.payloadOffset, f.payloadLength));
    }

    public DeadLetterValue decodeDeadLetter(byte[] value) {
        byte[] bytes = value == null ? new byte[0] : value;
        Fields f;
        try {
            f = parse(bytes, false, null);
        } catch (IOException | RuntimeException e) {
            f = null; // not JSON at all: shown below as raw text, with a reason
        }
        if (f == null) {
            // Not written by a dead-lettering worker: show it as raw text rather than hide it.
            return new DeadLetterValue(null, text(bytes), "dead-letter value is not a JSON object", null, null, null);
        }
        if (f.payloadLength >= 0) {
            f.payloadJson = new String(bytes, f.payloadOffset, f.payloadLength, StandardCharsets.UTF_8);
        }
        JobValue job = f.taskName == null ? null : f.job();
        return new DeadLetterValue(job, job == null ? (f.rawValue == null ? text(bytes) : f.rawValue) : null, f.error,
                f.originalId, f.deliveryCountRaw, f.deadLetteredAt);
    }

    private static String text(byte[] value) {
        return new String(value, StandardCharsets.UTF_8);
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
        /** Only for job values read for running (not dead-letter values): the payload's tokens, unless bound. */
        TokenBuffer payloadTokens;
        /** The payload bound in the pass, for the task named {@link #boundFor} (null: not bound). */
        Object bound;
        String boundFor;
        int payloadOffset = -1;
        int payloadLength = -1;
        Long enqueuedAt;
        JobMeta meta = JobMeta.NONE;
        Integer deliveryCountRaw;
        String jobId;
        String error;
        String originalId;
        Long deadLetteredAt;
        String rawValue;

        int deliveryCount() {
            return deliveryCountRaw == null || deliveryCountRaw < 1 ? 1 : deliveryCountRaw;
        }

        JobValue job() {
            return new JobValue(taskName, payloadJson == null ? "null" : payloadJson, enqueuedAt, meta, deliveryCount(), jobId);
        }
    }

    /**
     * One streaming pass over the bytes (no tree, no whole-value String: this runs once per delivery).
     * Null when the value is JSON but not an object.
     */
    private Fields parse(byte[] value, boolean keepTokens, PayloadTokens.Binder binder) throws IOException {
        try (JsonParser p = json.createParser(value)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            Fields f = new Fields();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken token = p.nextToken();
                switch (name) {
                    case "taskName" -> f.taskName = token == JsonToken.VALUE_STRING ? p.getText() : null;
                    case "payload" -> rawPayload(p, value, f, keepTokens, binder);
                    case "enqueuedAt" -> f.enqueuedAt = longOrNull(p, token);
                    case "deliveryCount" -> {
                        Long n = longOrNull(p, token);
                        f.deliveryCountRaw = n == null ? null : (int) Math.min(Integer.MAX_VALUE, n);
                    }
                    case "jobId" -> f.jobId = token == JsonToken.VALUE_STRING ? p.getText() : null;
                    case "meta" -> f.meta = meta(p, token);
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

    /** The current value's bytes exactly as they appear in {@code value}: its range, and as text. */
    private static void rawPayload(JsonParser p, byte[] value, Fields f, boolean keepTokens, PayloadTokens.Binder binder)
            throws IOException {
        int start = (int) p.currentTokenLocation().getByteOffset();
        Object bound = PayloadTokens.NOT_BOUND;
        if (binder != null && f.taskName != null) {
            try {
                bound = binder.bind(f.taskName, p); // on the payload's first token; ends on its last
            } catch (IOException | RuntimeException e) {
                throw new BindFailed();
            }
        }
        p.finishToken(); // strings are read lazily: move the location past their end
        if (bound != PayloadTokens.NOT_BOUND) {
            f.bound = bound;
            f.boundFor = f.taskName;
            f.payloadTokens = null;
        } else if (keepTokens) {
            // Kept as tokens while passing over them anyway: the core binds them to the task's type without a
            // second parser over the bytes.
            TokenBuffer tokens = new TokenBuffer(p, null);
            tokens.copyCurrentStructure(p);
            f.payloadTokens = tokens;
        } else {
            p.skipChildren();
        }
        int end = (int) p.currentLocation().getByteOffset();
        while (end > start && isJsonWhitespace(value[end - 1])) {
            end--;
        }
        f.payloadOffset = start;
        f.payloadLength = end - start; // the text is cut out only when asked for (Valid.job)
    }

    /** The binder failed part-way through a payload: the value is read again without it. */
    private static final class BindFailed extends RuntimeException {
        BindFailed() {
            super(null, null, false, false); // control flow only: no stack trace
        }
    }

    private static boolean isJsonWhitespace(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == '\r';
    }

    /** {@code meta} read in the same pass; keys match case-insensitively for Go's untagged spellings. */
    private static JobMeta meta(JsonParser p, JsonToken token) throws IOException {
        if (token != JsonToken.START_OBJECT) {
            p.skipChildren();
            return JobMeta.NONE;
        }
        Integer attempts = null;
        Long timeout = null;
        Backoff backoff = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken t = p.nextToken();
            if (name.equalsIgnoreCase("attempts")) {
                Long n = longOrNull(p, t);
                attempts = n == null ? null : (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, n));
            } else if (name.equalsIgnoreCase("timeout")) {
                timeout = t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT ? longOrNull(p, t) : skip(p);
            } else if (name.equalsIgnoreCase("backoff")) {
                backoff = backoff(p, t);
            } else {
                p.skipChildren();
            }
        }
        return attempts == null && timeout == null && backoff == null ? JobMeta.NONE
                : new JobMeta(attempts, backoff, timeout);
    }

    private static Long skip(JsonParser p) throws IOException {
        p.skipChildren();
        return null;
    }

    private static Backoff backoff(JsonParser p, JsonToken token) throws IOException {
        if (token != JsonToken.START_OBJECT) {
            p.skipChildren();
            return null;
        }
        String type = null;
        long delayMs = 0;
        long maxMs = 0;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken t = p.nextToken();
            if (name.equalsIgnoreCase("type")) {
                type = t.isScalarValue() ? p.getText() : null;
                p.skipChildren();
            } else if (name.equalsIgnoreCase("delay")) {
                Long n = t.isNumeric() ? longOrNull(p, t) : skip(p);
                delayMs = n == null ? 0 : Math.max(0, n);
            } else if (name.equalsIgnoreCase("maxDelay")) {
                Long n = t.isNumeric() ? longOrNull(p, t) : skip(p);
                maxMs = n == null ? 0 : n;
            } else {
                p.skipChildren();
            }
        }
        Backoff.Type parsed = type == null ? null : Backoff.Type.fromWire(type);
        // The seed waits 0 for an unknown backoff type (docs/wire-format.md): a fixed zero wait says the same.
        return parsed == null ? new Backoff(Backoff.Type.FIXED, 0, 0) : new Backoff(parsed, delayMs, maxMs);
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
