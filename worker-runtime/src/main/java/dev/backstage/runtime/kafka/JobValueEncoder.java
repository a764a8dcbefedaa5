package dev.backstage.runtime.kafka;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import dev.backstage.runtime.spi.Backoff;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.OutgoingJob;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Writes Kafka job values (docs/wire-format.md): the payload is embedded as the producer's JSON text, unchanged;
 * {@code meta} is always written (possibly empty), and {@code jobId} whenever there is one. The job fields are shared
 * with dead-letter values ({@link DeadLetterValueCodec}).
 */
public final class JobValueEncoder {
    private final JsonFactory json = new JsonFactory();

    /** The value for {@code job}; {@code jobId} is written as given (callers assign one to new jobs). */
    public byte[] encode(OutgoingJob job, String jobId) {
        return write(g -> writeJobFields(
                g, job.taskName(), job.payloadJson(), job.enqueuedAtMs(), job.meta(), job.deliveryCount(), jobId));
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

    void writeJobFields(
            JsonGenerator g,
            String taskName,
            String payloadJson,
            Long enqueuedAtMs,
            JobMeta meta,
            int deliveryCount,
            String jobId)
            throws IOException {
        g.writeStringField("taskName", taskName);
        g.writeFieldName("payload");
        if (!isJson(payloadJson)) {
            throw new IllegalArgumentException(
                    "payload of task '" + taskName + "' is not JSON text: " + abbreviate(payloadJson));
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

    /** Writes the fields of one JSON object. */
    interface FieldWriter {
        void write(JsonGenerator g) throws IOException;
    }

    /** One JSON object holding what {@code fields} writes. */
    byte[] write(FieldWriter fields) {
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

    private static String abbreviate(String text) {
        return text.length() <= 200 ? text : text.substring(0, 200) + "…";
    }
}
