package dev.backstage.runtime.redis;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.OutgoingJob;

/**
 * The member JSON of {@code {p}:scheduled} (docs/wire-format.md): no nulls, {@code payload} and
 * {@code backoff} as strings, numbers as numbers, {@code streamKey = {p}:{q}}, {@code priority = q}.
 * Optional {@code deliveryCount} and {@code jobId} carry a retry copy for a foreign jobs provider; the
 * seed's promotion scripts ignore them.
 */
final class DelayMember {
    private static final ObjectMapper JSON = new ObjectMapper();

    private DelayMember() {}

    static String encode(OutgoingJob job, RedisKeys keys) {
        ObjectNode node = JSON.createObjectNode();
        node.put("taskName", job.taskName());
        node.put("payload", job.payloadJson());
        node.put("enqueuedAt", job.enqueuedAtMs());
        node.put("streamKey", keys.stream(job.queue()));
        node.put("priority", job.queue());
        JobMeta meta = job.meta();
        if (meta.attempts() != null) {
            node.put("attempts", meta.attempts());
        }
        if (meta.backoff() != null) {
            node.put("backoff", JobEntryCodec.backoffJson(meta.backoff()));
        }
        if (meta.timeoutMs() != null) {
            node.put("timeout", meta.timeoutMs());
        }
        if (job.deliveryCount() > 1) {
            node.put("deliveryCount", job.deliveryCount());
        }
        if (job.jobId() != null) {
            node.put("jobId", job.jobId());
        }
        return node.toString();
    }

    /** Decodes a member for publishing through a foreign jobs provider; null if it cannot be read. */
    static OutgoingJob decode(String member, RedisKeys keys) {
        try {
            JsonNode node = JSON.readTree(member);
            String queue = node.hasNonNull("streamKey")
                    ? keys.queueOf(node.get("streamKey").asText())
                    : null;
            if (queue == null) {
                queue = node.path("priority").asText("default");
            }
            JobMeta meta = new JobMeta(
                    node.hasNonNull("attempts") ? node.get("attempts").asInt() : null,
                    JobEntryCodec.parseBackoff(node.path("backoff").asText(null)),
                    node.hasNonNull("timeout") ? node.get("timeout").asLong() : null);
            return new OutgoingJob(
                    queue,
                    node.path("taskName").asText(""),
                    node.path("payload").asText("null"),
                    node.path("enqueuedAt").asLong(0),
                    meta,
                    node.path("deliveryCount").asInt(1),
                    node.hasNonNull("jobId") ? node.get("jobId").asText() : null);
        } catch (Exception e) {
            return null;
        }
    }
}
