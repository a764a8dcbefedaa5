package dev.backstage.runtime.kafka;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import dev.backstage.runtime.core.JsonTokens;
import dev.backstage.runtime.spi.JobMeta;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Reads Kafka job values (docs/wire-format.md) in one streaming pass ({@link JobValueFields}): a value is either a
 * job or the reason it is not one. The payload stays a slice of the value until someone needs its text.
 */
public final class JobValueDecoder {
    private final JsonFactory json = new JsonFactory();

    /** A value as read: either a job or the reason it is not one. */
    public sealed interface Decoded permits Valid, Malformed {}

    /**
     * A job as read. Its fields are read in the one streaming pass; the payload stays a slice of the value
     * ({@link #payloadBytes()}, no copy) and becomes text only if someone asks for the {@link #job()} (a retry or
     * dead-letter copy, a seed-style text payload): a job that just runs never builds that string.
     */
    public static final class Valid implements Decoded {
        private final JobValueFields fields;
        private final ByteBuffer payloadBytes;
        private JobValue job;

        private Valid(JobValueFields fields, ByteBuffer payloadBytes) {
            this.fields = fields;
            this.payloadBytes = payloadBytes;
        }

        /** The payload's tokens, read in the envelope's pass (a new parser per call); null when it carried none. */
        public JsonParser payloadTokens() {
            return fields.payloadTokens == null ? null : fields.payloadTokens.asParser();
        }

        /**
         * The payload as the binder given to {@link #decode(byte[], JsonTokens.Binder)} bound it in the pass, or
         * {@link JsonTokens#NOT_BOUND} (also when the task name changed after the payload was bound).
         */
        public Object boundPayload() {
            return fields.boundFor != null && fields.boundFor.equals(fields.taskName)
                    ? fields.bound
                    : JsonTokens.NOT_BOUND;
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
                    fields.payloadJson = new String(
                            payloadBytes.array(),
                            payloadBytes.arrayOffset() + payloadBytes.position(),
                            payloadBytes.remaining(),
                            StandardCharsets.UTF_8);
                }
                j = fields.job();
                job = j;
            }
            return j;
        }
    }

    /** @param text the value as UTF-8 text, kept for the dead-letter record */
    public record Malformed(String reason, String text) implements Decoded {}

    public Decoded decode(byte[] value) {
        return decode(value, null);
    }

    /**
     * As {@link #decode(byte[])}, and when the task name comes before the payload (as {@link JobValueEncoder} writes
     * it), the payload is bound in the same pass by {@code binder} ({@link Valid#boundPayload()}) instead of being
     * kept as tokens. If binding fails the value is read again without it, so the failure is reported where an
     * unbound payload's would be.
     */
    public Decoded decode(byte[] value, JsonTokens.Binder binder) {
        if (value == null) {
            return new Malformed("record has no value (a tombstone), not a job", "");
        }
        JobValueFields f;
        try {
            try {
                f = JobValueFields.parse(json, value, true, binder);
            } catch (JobValueFields.BindFailed e) {
                f = JobValueFields.parse(json, value, true, null);
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

    private static String text(byte[] value) {
        return new String(value, StandardCharsets.UTF_8);
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unreadable";
        }
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }
}
