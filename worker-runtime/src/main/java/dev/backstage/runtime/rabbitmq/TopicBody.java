package dev.backstage.runtime.rabbitmq;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import java.nio.charset.StandardCharsets;

/**
 * A topic message (docs/wire-format.md): {@code {"payload":<embedded JSON>,"publishedAt":<ms>,"deliveryCount":n}}.
 *
 * @param payloadJson the payload's exact JSON text (null when absent)
 * @param malformedReason why the body is not a topic message, or null
 */
record TopicBody(String payloadJson, long publishedAtMs, int deliveryCount, String malformedReason) {

    static byte[] encode(ObjectMapper mapper, String payloadJson, long publishedAtMs, int deliveryCount) {
        String payload = payloadJson == null ? "null" : payloadJson;
        RawJsonObject.requireSingleValue(mapper, payload);
        ObjectNode body = mapper.createObjectNode();
        body.putRawValue("payload", new RawValue(payload));
        body.put("publishedAt", publishedAtMs);
        body.put("deliveryCount", deliveryCount);
        try {
            return mapper.writeValueAsBytes(body);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("writing a JSON tree failed", e);
        }
    }

    static TopicBody decode(ObjectMapper mapper, byte[] bytes) {
        String text = new String(bytes, StandardCharsets.UTF_8);
        try {
            RawJsonObject object = RawJsonObject.parse(mapper, text, "payload");
            JsonNode publishedAt = object.fields().get("publishedAt");
            JsonNode count = object.fields().get("deliveryCount");
            return new TopicBody(
                    object.rawField(),
                    publishedAt != null && publishedAt.canConvertToLong() ? publishedAt.asLong() : 0,
                    count != null && count.canConvertToInt() ? Math.max(1, count.asInt()) : 1,
                    null);
        } catch (RawJsonObject.NotAnObjectException e) {
            return new TopicBody(null, 0, 1, e.getMessage() + " (body: " + RawJsonObject.abbreviate(text) + ")");
        }
    }
}
