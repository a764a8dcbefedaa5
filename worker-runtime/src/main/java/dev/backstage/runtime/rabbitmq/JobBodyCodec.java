package dev.backstage.runtime.rabbitmq;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import dev.backstage.runtime.spi.Backoff;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.OutgoingJob;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;

/**
 * Writes and reads job bodies (docs/wire-format.md).
 *
 * <p>Writing: {@code {"queue","taskName","payload":<embedded JSON>,"enqueuedAt","meta":{…},"deliveryCount",
 * "jobId"}}; {@code meta} holds {@code attempts}, {@code backoff} (with an explicit positive {@code maxDelay})
 * and {@code timeout} only when set.
 *
 * <p>Reading is lenient where the seed SDKs differ: meta keys in camelCase and in Go's capitalised
 * spelling ({@code Attempts}, {@code Backoff}, {@code Timeout}) are both accepted, unknown fields are
 * ignored, a missing {@code deliveryCount} is 1. A body that is not a JSON object with a {@code taskName}
 * is malformed: the core dead-letters it with the reason instead of running it.
 */
final class JobBodyCodec {
    /** Fields a dead-letter body adds to the original body; a redrive removes them again. */
    static final String ERROR = "error";

    static final String ORIGINAL_ID = "originalId";
    static final String DEAD_LETTERED_AT = "deadLetteredAt";
    /** Holds the original text of a body that was not a JSON object, so a redrive can restore it. */
    static final String RAW_BODY = "rawBody";
    /** The original body, base64, when its bytes are not UTF-8 text (a redrive restores them byte for byte). */
    static final String RAW_BODY_BASE64 = "rawBodyBase64";

    private final ObjectMapper mapper;

    JobBodyCodec(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    ObjectMapper mapper() {
        return mapper;
    }

    byte[] encode(OutgoingJob job, String jobId) {
        RawJsonObject.requireSingleValue(mapper, job.payloadJson());
        ObjectNode body = mapper.createObjectNode();
        body.put("queue", job.queue());
        body.put("taskName", job.taskName());
        body.putRawValue("payload", new RawValue(job.payloadJson()));
        body.put("enqueuedAt", job.enqueuedAtMs());
        body.set("meta", encodeMeta(job.meta()));
        body.put("deliveryCount", job.deliveryCount());
        if (jobId != null) {
            body.put("jobId", jobId);
        }
        return write(body);
    }

    private ObjectNode encodeMeta(JobMeta meta) {
        ObjectNode node = mapper.createObjectNode();
        if (meta.attempts() != null) {
            node.put("attempts", meta.attempts());
        }
        if (meta.backoff() != null) {
            ObjectNode backoff = node.putObject("backoff");
            backoff.put("type", meta.backoff().type().wire());
            backoff.put("delay", meta.backoff().delayMs());
            backoff.put("maxDelay", meta.backoff().wireMaxDelayMs());
        }
        if (meta.timeoutMs() != null) {
            node.put("timeout", meta.timeoutMs());
        }
        return node;
    }

    JobBody decode(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.UTF_8);
        RawJsonObject object;
        try {
            object = RawJsonObject.parse(mapper, text, "payload");
        } catch (RawJsonObject.NotAnObjectException e) {
            return new JobBody(
                    null,
                    text,
                    null,
                    "",
                    null,
                    0,
                    JobMeta.NONE,
                    1,
                    null,
                    null,
                    e.getMessage() + " (body: " + RawJsonObject.abbreviate(text) + ")",
                    bytes);
        }
        ObjectNode fields = object.fields();
        JsonNode taskName = fields.get("taskName");
        String malformed = null;
        if (taskName == null || !taskName.isTextual() || taskName.asText().isBlank()) {
            malformed = "body has no taskName (body: " + RawJsonObject.abbreviate(text) + ")";
        }
        return new JobBody(
                fields,
                text,
                textOrNull(fields.get("queue")),
                taskName != null && taskName.isTextual() ? taskName.asText() : "",
                object.rawField(),
                longOr(fields.get("enqueuedAt"), 0),
                decodeMeta(fields.get("meta")),
                (int) Math.max(1, Math.min(Integer.MAX_VALUE, longOr(fields.get("deliveryCount"), 1))),
                blankToNull(textOrNull(fields.get("jobId"))),
                blankToNull(textOrNull(fields.get(ORIGINAL_ID))),
                malformed,
                bytes);
    }

    private JobMeta decodeMeta(JsonNode meta) {
        if (meta == null || !meta.isObject()) {
            return JobMeta.NONE;
        }
        JsonNode attempts = field(meta, "attempts");
        JsonNode timeout = field(meta, "timeout");
        return new JobMeta(
                attempts != null && attempts.canConvertToLong() ? (int) attempts.asLong() : null,
                decodeBackoff(field(meta, "backoff")),
                timeout != null && timeout.canConvertToLong() ? timeout.asLong() : null);
    }

    private Backoff decodeBackoff(JsonNode node) {
        if (node == null || !node.isObject()) {
            return null;
        }
        long delay = Math.max(0, longOr(field(node, "delay"), 0));
        long maxDelay = Math.max(0, longOr(field(node, "maxDelay"), 0));
        Backoff.Type type = Backoff.Type.fromWire(textOrNull(field(node, "type")));
        if (type == null) {
            // The seed computes a wait of 0 for any other type (docs/wire-format.md): retry at once.
            return new Backoff(Backoff.Type.FIXED, 0, 0);
        }
        return new Backoff(type, delay, maxDelay);
    }

    /**
     * The dead-letter body: the original body plus {@code error, originalId, deliveryCount, deadLetteredAt}
     * and {@code jobId} (docs/wire-format.md). A body that was not a JSON object is kept as text in
     * {@code rawBody}.
     */
    byte[] deadLetter(
            JobBody original, String error, String originalId, int deliveryCount, String jobId, long deadLetteredAtMs) {
        ObjectNode body = original.fields() != null ? original.fields().deepCopy() : mapper.createObjectNode();
        if (original.fields() == null) {
            if (original.raw() != null && !isUtf8(original.raw())) {
                body.put(RAW_BODY_BASE64, java.util.Base64.getEncoder().encodeToString(original.raw()));
            } else {
                body.put(RAW_BODY, original.text());
            }
        }
        body.put(ERROR, error == null ? "" : error);
        body.put(ORIGINAL_ID, originalId);
        body.put("deliveryCount", deliveryCount);
        body.put(DEAD_LETTERED_AT, deadLetteredAtMs);
        body.put("jobId", jobId);
        return write(body);
    }

    /**
     * The body a redrive publishes: the dead-lettered job as a fresh job (delivery count 1, same job id),
     * without the dead-letter fields. An entry that was never a JSON object gets its original text back.
     */
    byte[] redriven(JobBody deadLettered, String jobId) {
        ObjectNode fields = deadLettered.fields();
        if (fields == null) {
            return deadLettered.text().getBytes(StandardCharsets.UTF_8);
        }
        if (fields.hasNonNull(RAW_BODY_BASE64) && !fields.has("taskName")) {
            return java.util.Base64.getDecoder()
                    .decode(fields.get(RAW_BODY_BASE64).asText());
        }
        if (fields.hasNonNull(RAW_BODY) && !fields.has("taskName")) {
            return fields.get(RAW_BODY).asText().getBytes(StandardCharsets.UTF_8);
        }
        ObjectNode body = fields.deepCopy();
        body.remove(ERROR);
        body.remove(ORIGINAL_ID);
        body.remove(DEAD_LETTERED_AT);
        body.put("deliveryCount", 1);
        if (jobId != null) {
            body.put("jobId", jobId);
        }
        return write(body);
    }

    static boolean isUtf8(byte[] bytes) {
        try {
            StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                    .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(bytes));
            return true;
        } catch (java.nio.charset.CharacterCodingException e) {
            return false;
        }
    }

    /** Looks a meta field up in camelCase or in any other capitalisation (Go's untagged structs). */
    private static JsonNode field(JsonNode object, String name) {
        JsonNode exact = object.get(name);
        if (exact != null) {
            return exact;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            if (entry.getKey().equalsIgnoreCase(name)) {
                return entry.getValue();
            }
        }
        return null;
    }

    private static String textOrNull(JsonNode node) {
        if (node == null || node.isNull()) {
            return null;
        }
        return node.isValueNode() ? node.asText() : node.toString();
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value;
    }

    private static long longOr(JsonNode node, long defaultValue) {
        if (node == null || node.isNull()) {
            return defaultValue;
        }
        if (node.canConvertToLong()) {
            return node.asLong();
        }
        if (node.isTextual()) {
            try {
                return Long.parseLong(node.asText().trim());
            } catch (NumberFormatException e) {
                return defaultValue;
            }
        }
        return defaultValue;
    }

    byte[] write(ObjectNode body) {
        try {
            return mapper.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("writing a JSON tree failed", e);
        }
    }
}
