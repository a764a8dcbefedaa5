package dev.backstage.runtime.core;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.backstage.runtime.spi.ConfigurationException;
import dev.backstage.runtime.spi.Payload;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** JSON encoding of payloads with one shared, immutable mapper configuration. */
public final class PayloadCodec {
    private final ObjectMapper mapper;
    /**
     * One reader per payload type: {@code mapper.readValue(text, type)} resolves the type and looks up its
     * deserializer on every call, about a sixth of a small payload's decode.
     */
    private final Map<Class<?>, ObjectReader> readers = new ConcurrentHashMap<>();
    /** The same without the trailing-token check, for a payload bound in the middle of its record. */
    private final Map<Class<?>, ObjectReader> inlineReaders = new ConcurrentHashMap<>();

    public PayloadCodec(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    public static PayloadCodec defaults() {
        return new PayloadCodec(
                new ObjectMapper().findAndRegisterModules().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES));
    }

    public ObjectMapper mapper() {
        return mapper;
    }

    public String encode(Object payload) {
        try {
            return mapper.writeValueAsString(payload);
        } catch (JsonProcessingException e) {
            throw new ConfigurationException(
                    "payload of type " + payload.getClass().getName() + " cannot be written as JSON: "
                            + e.getOriginalMessage(),
                    e);
        }
    }

    /**
     * Decodes {@code json} into {@code type}. The payload must be exactly one JSON value (trailing content is
     * malformed, the same on every broker), and a missing or {@code null} payload is malformed unless the type
     * can stand for "no payload" ({@link #acceptsNull}).
     *
     * @throws MalformedPayloadException with a reason fit for a dead-letter entry
     */
    public <T> T decode(String json, Class<T> type) {
        String text = json == null ? "null" : json;
        try {
            if (type == JsonNode.class) {
                return type.cast(mapper.reader()
                        .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                        .readTree(text));
            }
            return notNull(readerFor(type).readValue(text), type, json == null);
        } catch (JsonProcessingException e) {
            // Only on the failure path: tell "not JSON at all" from "JSON of the wrong shape".
            if (!looksLikeJson(text)) {
                throw new MalformedPayloadException("payload is not valid JSON: " + abbreviate(text));
            }
            throw new MalformedPayloadException("payload cannot be read as " + type.getSimpleName() + ": "
                    + e.getOriginalMessage() + " (payload: " + abbreviate(text) + ")");
        }
    }

    /**
     * Decodes UTF-8 JSON bytes (a provider's record, or a slice of it) into {@code type}, without making a
     * String of them first: a byte parser, and no char copy of the payload. Failures read as {@link #decode(String, Class)}'s.
     *
     * @throws MalformedPayloadException with a reason fit for a dead-letter entry
     */
    public <T> T decode(ByteBuffer utf8, Class<T> type) {
        if (!utf8.hasArray()) { // read-only or direct: one copy, then as below
            ByteBuffer copy = ByteBuffer.allocate(utf8.remaining()).put(utf8.duplicate());
            return decode(copy.flip(), type);
        }
        byte[] array = utf8.array();
        int offset = utf8.arrayOffset() + utf8.position();
        int length = utf8.remaining();
        try {
            if (type == JsonNode.class) {
                return type.cast(mapper.reader()
                        .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                        .readTree(new java.io.ByteArrayInputStream(array, offset, length)));
            }
            return notNull(readerFor(type).readValue(array, offset, length), type, false);
        } catch (IOException e) {
            return decode(new String(array, offset, length, StandardCharsets.UTF_8), type); // throws, with the reason
        }
    }

    /**
     * Binds already-read JSON tokens (one value) to {@code type}: no text is parsed again. On failure the
     * reason is {@link #decode(String, Class)}'s for {@code text}.
     *
     * @throws MalformedPayloadException with a reason fit for a dead-letter entry
     */
    public <T> T decode(
            com.fasterxml.jackson.core.JsonParser tokens, Class<T> type, java.util.function.Supplier<String> text) {
        if (type == JsonNode.class) {
            return decode(text.get(), type); // null reads as a null node there
        }
        try (tokens) {
            return notNull(readerFor(type).readValue(tokens), type, false);
        } catch (IOException e) {
            return decode(text.get(), type); // throws, with the reason
        }
    }

    /**
     * Decodes a delivery's payload to {@code type} from the form its provider holds it in ({@link Payload}): the
     * core's parsed tokens when the provider read them ({@link JsonTokens}), else the bytes, else the text. This is
     * the one decoding route for jobs and topic messages; failures read as {@link #decode(String, Class)}'s.
     *
     * @throws MalformedPayloadException with a reason fit for a dead-letter entry
     */
    public <T> T decode(Payload payload, Class<T> type) {
        if (payload instanceof JsonTokens parsed) {
            com.fasterxml.jackson.core.JsonParser tokens = parsed.tokens();
            return tokens != null ? decode(tokens, type, parsed::json) : decode(parsed.json(), type);
        }
        if (payload instanceof Payload.Bytes bytes) {
            return decode(bytes.utf8(), type);
        }
        return decode(payload.json(), type); // text, or a parsed form that is not the core's
    }

    /**
     * Has a payload in the core's parsed form bound in its provider's one pass over the record, by {@code binder}
     * ({@link JsonTokens#readBinding}); {@link JsonTokens#NOT_BOUND} for every other form, and when the pass did
     * not bind it.
     */
    public Object readBinding(Payload payload, JsonTokens.Binder binder) {
        return payload instanceof JsonTokens parsed ? parsed.readBinding(binder) : JsonTokens.NOT_BOUND;
    }

    /**
     * Binds one value from {@code parser} (positioned on its first token, inside a larger document: what follows
     * is not checked) to {@code type}, leaving the parser on the value's last token. The null rule is
     * {@link #decode(String, Class)}'s; a failure throws and may leave the parser anywhere.
     */
    public <T> T decodeInline(com.fasterxml.jackson.core.JsonParser parser, Class<T> type) throws IOException {
        return notNull(inlineReaders.computeIfAbsent(type, mapper::readerFor).readValue(parser), type, false);
    }

    private ObjectReader readerFor(Class<?> type) {
        return readers.computeIfAbsent(
                type, t -> mapper.readerFor(t).with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS));
    }

    /**
     * Types that may stand for "no payload": {@code Void}, {@code Object}, {@code Optional} and JSON trees
     * ({@code null} reads as a null node). Every other type needs a payload: a handler written for an
     * {@code Order} would only fail on a null one, delivery after delivery.
     */
    static boolean acceptsNull(Class<?> type) {
        return type == Void.class
                || type == Object.class
                || type == java.util.Optional.class
                || JsonNode.class.isAssignableFrom(type);
    }

    private static <T> T notNull(T value, Class<T> type, boolean missing) {
        if (value == null && !acceptsNull(type)) {
            throw new MalformedPayloadException((missing ? "payload is missing" : "payload is null") + ", and a "
                    + type.getSimpleName() + " payload cannot be null");
        }
        return value;
    }

    private boolean looksLikeJson(String text) {
        try {
            mapper.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readTree(text);
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
