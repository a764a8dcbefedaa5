package dev.backstage.runtime.core;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.backstage.runtime.api.ConfigurationException;

/** JSON encoding of payloads with one shared, immutable mapper configuration. */
public final class PayloadCodec {
    private final ObjectMapper mapper;

    public PayloadCodec(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    public static PayloadCodec defaults() {
        return new PayloadCodec(new ObjectMapper()
                .findAndRegisterModules()
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES));
    }

    public ObjectMapper mapper() {
        return mapper;
    }

    public String encode(Object payload) {
        try {
            return mapper.writeValueAsString(payload);
        } catch (JsonProcessingException e) {
            throw new ConfigurationException("payload of type " + payload.getClass().getName()
                    + " cannot be written as JSON: " + e.getOriginalMessage(), e);
        }
    }

    /**
     * Decodes {@code json} into {@code type}. A missing payload decodes as JSON {@code null}.
     *
     * @throws MalformedPayloadException with a reason fit for a dead-letter entry
     */
    public <T> T decode(String json, Class<T> type) {
        String text = json == null ? "null" : json;
        try {
            if (type == JsonNode.class) {
                return type.cast(mapper.readTree(text));
            }
            return mapper.readValue(text, type);
        } catch (JsonProcessingException e) {
            // Only on the failure path: tell "not JSON at all" from "JSON of the wrong shape".
            if (!looksLikeJson(text)) {
                throw new MalformedPayloadException("payload is not valid JSON: " + abbreviate(text));
            }
            throw new MalformedPayloadException("payload cannot be read as " + type.getSimpleName() + ": "
                    + e.getOriginalMessage() + " (payload: " + abbreviate(text) + ")");
        }
    }

    private boolean looksLikeJson(String text) {
        try {
            mapper.readTree(text);
            return true;
        } catch (JsonProcessingException e) {
            return false;
        }
    }

    private static String abbreviate(String text) {
        return text.length() <= 200 ? text : text.substring(0, 200) + "…";
    }

    /** The payload could not be decoded; it is dead-lettered, never retried. */
    public static final class MalformedPayloadException extends RuntimeException {
        public MalformedPayloadException(String message) {
            super(message);
        }
    }
}
