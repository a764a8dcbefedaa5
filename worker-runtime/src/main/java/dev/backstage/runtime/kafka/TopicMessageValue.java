package dev.backstage.runtime.kafka;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * A topic message as a Kafka record value carries it (docs/wire-format.md):
 * {@code {"payload":<JSON>,"publishedAt":ms,"deliveryCount":n}}.
 *
 * @param payloadJson the payload's JSON text as it appeared in the value
 */
public record TopicMessageValue(String payloadJson, long publishedAtMs, int deliveryCount) {
    private static final JsonFactory JSON = new JsonFactory();

    public byte[] encode() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(128);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeFieldName("payload");
            g.writeRawValue(payloadJson);
            g.writeNumberField("publishedAt", publishedAtMs);
            g.writeNumberField("deliveryCount", deliveryCount);
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // writing to memory: only a bug gets here
        }
        return out.toByteArray();
    }

    /**
     * Reads a value; a value that is not a JSON object is passed on whole as the payload (a foreign
     * producer's plain JSON), so the subscriber decides what to do with it.
     */
    public static TopicMessageValue decode(byte[] value, long recordTimestampMs) {
        String text = value == null ? "null" : new String(value, StandardCharsets.UTF_8);
        try (JsonParser p = JSON.createParser(text)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return new TopicMessageValue(text, recordTimestampMs, 1);
            }
            String payload = null;
            long publishedAt = recordTimestampMs;
            int deliveryCount = 1;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken token = p.nextToken();
                if ("payload".equals(name)) {
                    int start = (int) p.currentTokenLocation().getCharOffset();
                    p.finishToken(); // strings are read lazily: move the location past their end
                    p.skipChildren();
                    payload = text.substring(start, (int) p.currentLocation().getCharOffset());
                } else if ("publishedAt".equals(name) && token == JsonToken.VALUE_NUMBER_INT) {
                    publishedAt = p.getLongValue();
                } else if ("deliveryCount".equals(name) && token == JsonToken.VALUE_NUMBER_INT) {
                    deliveryCount = Math.max(1, p.getIntValue());
                } else {
                    p.skipChildren();
                }
            }
            return new TopicMessageValue(payload == null ? "null" : payload, publishedAt, deliveryCount);
        } catch (IOException e) {
            return new TopicMessageValue(text, recordTimestampMs, 1);
        }
    }
}
