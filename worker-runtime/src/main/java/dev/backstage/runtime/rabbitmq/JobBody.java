package dev.backstage.runtime.rabbitmq;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.backstage.runtime.spi.JobMeta;

/**
 * A job message as read from a queue (docs/wire-format.md): {@code queue, taskName, payload, enqueuedAt, meta,
 * deliveryCount}, plus our optional {@code jobId} (docs/wire-format.md) and, in dead-letter bodies, {@code error,
 * originalId, deadLetteredAt}.
 *
 * @param fields          every field as read (payload kept as raw JSON); null when the body is not an object
 * @param text            the body as UTF-8 text
 * @param payloadJson     the payload's exact JSON text, or null when absent
 * @param deliveryCount   the count written in the body (default 1); the redelivered flag is applied later
 * @param jobId           the body's {@code jobId}, or null
 * @param originalId      the body's {@code originalId} (dead-letter bodies), or null
 * @param malformedReason why the body cannot be run as a job, or null when it can
 * @param raw             the body's bytes exactly as received (a dead letter keeps them, base64 where they are
 *                        not UTF-8, so a redrive restores them)
 */
record JobBody(
        ObjectNode fields,
        String text,
        String queue,
        String taskName,
        String payloadJson,
        long enqueuedAtMs,
        JobMeta meta,
        int deliveryCount,
        String jobId,
        String originalId,
        String malformedReason,
        byte[] raw) {

    boolean malformed() {
        return malformedReason != null;
    }

    /** A text field of a dead-letter body ({@code error}, …), or null. */
    String text(String field) {
        if (fields == null || !fields.hasNonNull(field)) {
            return null;
        }
        return fields.get(field).isValueNode()
                ? fields.get(field).asText()
                : fields.get(field).toString();
    }

    /** A numeric field ({@code deadLetteredAt}, …), or null. */
    Long number(String field) {
        if (fields == null || !fields.hasNonNull(field)) {
            return null;
        }
        var node = fields.get(field);
        if (node.isNumber()) {
            return node.asLong();
        }
        if (node.isTextual()) {
            try {
                return Long.parseLong(node.asText().trim());
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return null;
    }
}
