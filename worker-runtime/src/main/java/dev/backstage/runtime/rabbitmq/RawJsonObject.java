package dev.backstage.runtime.rabbitmq;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A JSON object read so that one embedded field (the payload) keeps its exact text. Handlers get the
 * payload byte for byte as the producer wrote it, and copies (retry, dead-letter) embed that same text
 * again instead of a re-serialised tree that could change number formats or escapes.
 *
 * @param fields    every field; the raw field is held as a {@link RawValue}
 * @param rawField  the raw field's JSON text, or null when the object has no such field
 */
record RawJsonObject(ObjectNode fields, String rawField) {

    /** Thrown with a reason fit for a dead-letter entry. */
    static final class NotAnObjectException extends Exception {
        NotAnObjectException(String message) {
            super(message);
        }
    }

    static RawJsonObject parse(ObjectMapper mapper, String text, String rawFieldName) throws NotAnObjectException {
        try (JsonParser parser = mapper.createParser(text)) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                throw new NotAnObjectException("body is empty");
            }
            if (first != JsonToken.START_OBJECT) {
                throw new NotAnObjectException("body is JSON but not an object (starts with " + first.asString() + ")");
            }
            ObjectNode fields = mapper.createObjectNode();
            String raw = null;
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                parser.nextToken();
                if (name.equals(rawFieldName)) {
                    int start = (int) parser.currentTokenLocation().getCharOffset();
                    parser.skipChildren();
                    parser.finishToken(); // a string value is read lazily; its end is only known once finished
                    int end = (int) parser.currentLocation().getCharOffset();
                    raw = text.substring(start, end);
                    fields.putRawValue(name, new RawValue(raw));
                } else {
                    JsonNode value = parser.readValueAsTree();
                    fields.set(name, value);
                }
            }
            if (parser.currentToken() != JsonToken.END_OBJECT) {
                throw new NotAnObjectException("body is not a complete JSON object");
            }
            if (parser.nextToken() != null) {
                throw new NotAnObjectException("body has trailing content after the JSON object");
            }
            return new RawJsonObject(fields, raw);
        } catch (JsonProcessingException e) {
            throw new NotAnObjectException("body is not JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new UncheckedIOException("reading an in-memory string failed", e);
        }
    }

    /** Fails when {@code json} is not exactly one JSON value, so a bad payload never reaches the broker. */
    static void requireSingleValue(ObjectMapper mapper, String json) {
        try (JsonParser parser = mapper.createParser(json)) {
            if (parser.nextToken() == null) {
                throw new IllegalArgumentException("payload JSON is empty");
            }
            parser.skipChildren();
            if (parser.nextToken() != null) {
                throw new IllegalArgumentException("payload JSON has trailing content: " + abbreviate(json));
            }
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "payload is not valid JSON (" + e.getOriginalMessage() + "): " + abbreviate(json), e);
        } catch (IOException e) {
            throw new UncheckedIOException("reading an in-memory string failed", e);
        }
    }

    static String abbreviate(String text) {
        return text.length() <= 200 ? text : text.substring(0, 200) + "…";
    }
}
