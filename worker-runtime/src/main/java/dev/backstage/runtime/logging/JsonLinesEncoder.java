package dev.backstage.runtime.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.encoder.EncoderBase;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;

/**
 * One JSON object per log event, one event per line:
 * {@code {"timestamp":"2026-12-01T19:52:00.123Z","level":"INFO","logger":"…","thread":"…","message":"…",
 * "mdc":{"task":"…","jobId":"…"},"exception":"java.lang.IllegalStateException: …\n\tat …"}}.
 * {@code mdc} and {@code exception} appear only when present; the exception (with its causes) is one string, so
 * a stack trace never spans lines.
 *
 * <p>Why not logback's own {@code JsonEncoder}: it writes the throwable as nested objects and frames, and epoch
 * milliseconds; log pipelines (Loki, Elasticsearch, Cloud Logging) expect an ISO-8601 time and a stack trace as
 * text.
 */
public final class JsonLinesEncoder extends EncoderBase<ILoggingEvent> {
    private static final JsonFactory JSON = new JsonFactory();
    private static final DateTimeFormatter TIMESTAMP =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSX").withZone(ZoneOffset.UTC);
    private static final byte[] NONE = new byte[0];

    @Override
    public byte[] headerBytes() {
        return NONE;
    }

    @Override
    public byte[] encode(ILoggingEvent event) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.writeStartObject();
            json.writeStringField("timestamp", TIMESTAMP.format(Instant.ofEpochMilli(event.getTimeStamp())));
            json.writeStringField("level", event.getLevel().toString());
            json.writeStringField("logger", event.getLoggerName());
            json.writeStringField("thread", event.getThreadName());
            json.writeStringField("message", event.getFormattedMessage());
            Map<String, String> mdc = event.getMDCPropertyMap();
            if (mdc != null && !mdc.isEmpty()) {
                json.writeObjectFieldStart("mdc");
                for (Map.Entry<String, String> entry : new java.util.TreeMap<>(mdc).entrySet()) {
                    json.writeStringField(entry.getKey(), entry.getValue());
                }
                json.writeEndObject();
            }
            IThrowableProxy thrown = event.getThrowableProxy();
            if (thrown != null) {
                json.writeStringField(
                        "exception", ThrowableProxyUtil.asString(thrown).stripTrailing());
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write a log event as JSON", e);
        }
        out.write('\n');
        return out.toByteArray();
    }

    @Override
    public byte[] footerBytes() {
        return NONE;
    }
}
