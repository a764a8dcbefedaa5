package dev.backstage.runtime.kafka;

import com.fasterxml.jackson.core.JsonFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Writes and reads Kafka dead-letter values (docs/wire-format.md): the job's fields as {@link JobValueEncoder}
 * writes them, plus {@code error}, {@code originalId} and {@code deadLetteredAt}; a record that was not a readable
 * job is kept verbatim as {@code rawValue}. Reading never hides a value: one not written by a dead-lettering worker
 * comes back as raw text with a reason.
 */
public final class DeadLetterValueCodec {
    private final JsonFactory json = new JsonFactory();
    private final JobValueEncoder jobs = new JobValueEncoder();

    public byte[] encodeDeadLetter(
            JobValue job, String jobId, String error, String originalId, int deliveryCount, long deadLetteredAtMs) {
        return jobs.write(g -> {
            jobs.writeJobFields(
                    g, job.taskName(), job.payloadJson(), job.enqueuedAtMs(), job.meta(), deliveryCount, jobId);
            g.writeStringField("error", error == null ? "" : error);
            g.writeStringField("originalId", originalId);
            g.writeNumberField("deadLetteredAt", deadLetteredAtMs);
        });
    }

    /** A dead-letter value for a record that was not a readable job: its text is kept verbatim. */
    public byte[] encodeMalformedDeadLetter(String rawText, String error, String originalId, long deadLetteredAtMs) {
        return jobs.write(g -> {
            g.writeStringField("error", error == null ? "" : error);
            g.writeStringField("originalId", originalId);
            g.writeNumberField("deliveryCount", 1);
            g.writeNumberField("deadLetteredAt", deadLetteredAtMs);
            g.writeStringField("rawValue", rawText);
        });
    }

    public DeadLetterValue decodeDeadLetter(byte[] value) {
        byte[] bytes = value == null ? new byte[0] : value;
        JobValueFields f;
        try {
            f = JobValueFields.parse(json, bytes, false, null);
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
        return new DeadLetterValue(
                job,
                job == null ? (f.rawValue == null ? text(bytes) : f.rawValue) : null,
                f.error,
                f.originalId,
                f.deliveryCountRaw,
                f.deadLetteredAt);
    }

    private static String text(byte[] value) {
        return new String(value, StandardCharsets.UTF_8);
    }
}
