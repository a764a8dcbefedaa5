package dev.backstage.runtime.kafka;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.util.TokenBuffer;
import dev.backstage.runtime.core.JsonTokens;
import dev.backstage.runtime.spi.Backoff;
import dev.backstage.runtime.spi.JobMeta;
import java.io.IOException;

/**
 * Everything a Kafka job value or dead-letter value may carry (docs/wire-format.md), read in one streaming pass
 * over the bytes: no tree, no whole-value String, since this runs once per delivery. Null where absent. It accepts
 * what the seed SDKs write: missing {@code deliveryCount} (1), missing {@code payload} (JSON null), and {@code meta}
 * keys spelled {@code attempts}/{@code backoff}/{@code timeout} or Go's untagged
 * {@code Attempts}/{@code Backoff}/{@code Timeout}; unknown fields are ignored. The payload is cut out of the value
 * as it is (its byte range), so the handler gets the producer's bytes: no re-serialisation, no float rounding.
 */
final class JobValueFields {
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
        return new JobValue(
                taskName, payloadJson == null ? "null" : payloadJson, enqueuedAt, meta, deliveryCount(), jobId);
    }

    /** The binder failed part-way through a payload: the value is read again without it. */
    static final class BindFailed extends RuntimeException {
        BindFailed() {
            super(null, null, false, false); // control flow only: no stack trace
        }
    }

    /**
     * The one pass over {@code value}. Null when the value is JSON but not an object. With {@code keepTokens} the
     * payload's tokens are kept (unless {@code binder} bound it in the pass).
     *
     * @throws BindFailed when {@code binder} failed part-way: read the value again without it
     */
    static JobValueFields parse(JsonFactory json, byte[] value, boolean keepTokens, JsonTokens.Binder binder)
            throws IOException {
        try (JsonParser p = json.createParser(value)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            JobValueFields f = new JobValueFields();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken token = p.nextToken();
                switch (name) {
                    case "taskName" -> f.taskName = token == JsonToken.VALUE_STRING ? p.getText() : null;
                    case "payload" -> f.rawPayload(p, value, keepTokens, binder);
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
    private void rawPayload(JsonParser p, byte[] value, boolean keepTokens, JsonTokens.Binder binder)
            throws IOException {
        int start = (int) p.currentTokenLocation().getByteOffset();
        Object boundNow = JsonTokens.NOT_BOUND;
        if (binder != null && taskName != null) {
            try {
                boundNow = binder.bind(taskName, p); // on the payload's first token; ends on its last
            } catch (IOException | RuntimeException e) {
                throw new BindFailed();
            }
        }
        p.finishToken(); // strings are read lazily: move the location past their end
        if (boundNow != JsonTokens.NOT_BOUND) {
            bound = boundNow;
            boundFor = taskName;
            payloadTokens = null;
        } else if (keepTokens) {
            // Kept as tokens while passing over them anyway: the core binds them to the task's type without a
            // second parser over the bytes.
            TokenBuffer tokens = new TokenBuffer(p, null);
            tokens.copyCurrentStructure(p);
            payloadTokens = tokens;
        } else {
            p.skipChildren();
        }
        int end = (int) p.currentLocation().getByteOffset();
        while (end > start && isJsonWhitespace(value[end - 1])) {
            end--;
        }
        payloadOffset = start;
        payloadLength = end - start; // the text is cut out only when asked for (JobValueDecoder.Valid.job)
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
                timeout = t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT
                        ? longOrNull(p, t)
                        : skip(p);
            } else if (name.equalsIgnoreCase("backoff")) {
                backoff = backoff(p, t);
            } else {
                p.skipChildren();
            }
        }
        return attempts == null && timeout == null && backoff == null
                ? JobMeta.NONE
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
}
