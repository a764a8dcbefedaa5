package dev.backstage.runtime.redis;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.backstage.runtime.spi.Backoff;
import dev.backstage.runtime.spi.JobMeta;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Stream entry fields ↔ job, exactly as docs/wire-format.md: {@code taskName}, {@code payload} (JSON text),
 * {@code enqueuedAt} (ms), then {@code attempts} and {@code timeout} only when > 0 and {@code backoff} as
 * JSON text with an explicit positive {@code maxDelay}. Readers accept every seed variant.
 */
final class JobEntryCodec {
    private static final ObjectMapper JSON = new ObjectMapper();

    private JobEntryCodec() {}

    /** Field/value pairs in the TS order, ready for XADD. */
    static Object[] fields(String taskName, String payloadJson, long enqueuedAtMs, JobMeta meta) {
        List<Object> out = new ArrayList<>(12);
        out.add("taskName");
        out.add(taskName);
        out.add("payload");
        out.add(payloadJson);
        out.add("enqueuedAt");
        out.add(Long.toString(enqueuedAtMs));
        if (meta.attempts() != null) {
            out.add("attempts");
            out.add(Integer.toString(meta.attempts()));
        }
        if (meta.backoff() != null) {
            out.add("backoff");
            out.add(backoffJson(meta.backoff()));
        }
        if (meta.timeoutMs() != null) {
            out.add("timeout");
            out.add(Long.toString(meta.timeoutMs()));
        }
        return out.toArray();
    }

    static String backoffJson(Backoff backoff) {
        ObjectNode node = JSON.createObjectNode();
        node.put("type", backoff.type().wire());
        node.put("delay", backoff.delayMs());
        node.put("maxDelay", backoff.wireMaxDelayMs());
        return node.toString();
    }

    /** Parses a seed backoff object; null when absent or unreadable (an unreadable one is ignored, as in the seed). */
    static Backoff parseBackoff(String json) {
        if (json == null || json.isBlank()) {
            return null;
        }
        try {
            JsonNode node = JSON.readTree(json);
            Backoff.Type type = Backoff.Type.fromWire(node.path("type").asText(""));
            if (type == null) {
                return null;
            }
            return new Backoff(
                    type,
                    Math.max(0, node.path("delay").asLong(0)),
                    node.path("maxDelay").asLong(0));
        } catch (Exception e) {
            return null;
        }
    }

    static JobMeta meta(Map<String, String> body) {
        return new JobMeta(
                parseInt(body.get("attempts")), parseBackoff(body.get("backoff")), parseLong(body.get("timeout")));
    }

    static long enqueuedAt(Map<String, String> body) {
        Long value = parseLong(body.get("enqueuedAt"));
        return value == null ? 0L : value;
    }

    static Integer parseInt(String value) {
        Long parsed = parseLong(value);
        return parsed == null ? null : (int) Math.min(Integer.MAX_VALUE, parsed);
    }

    static Long parseLong(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            try {
                return (long) Double.parseDouble(value.trim()); // Lua's tostring may print 1.7e+12 for odd values
            } catch (NumberFormatException ignored) {
                return null;
            }
        }
    }

    /**
     * Why an entry cannot be handled at all, or null when it can. An unparseable payload is found later,
     * once, by the payload codec, which dead-letters it with the parser's reason.
     */
    static String malformedReason(Map<String, String> body) {
        if (!body.containsKey("taskName")) {
            return "entry has no taskName field (fields: " + body.keySet() + ")";
        }
        return null;
    }
}
