package dev.backstage.runtime.spi;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A delivery's payload, in the form its provider holds it: the one way the core reaches a payload
 * ({@link Delivery#payload()}, {@link TopicDelivery#payload()}). The core decodes each form to the handler's type
 * without asking for another one first:
 * <ul>
 *   <li>{@link Text} — JSON text, exactly as the broker carried it (Redis, RabbitMQ, topic messages);
 *   <li>{@link Bytes} — UTF-8 JSON bytes, a slice of the provider's record rather than a copy, decoded without
 *       making a string of them;
 *   <li>{@link Parsed} — read already in the provider's one pass over its record (Kafka): the core's own parsed
 *       form, built by the provider from the core's {@code JsonTokens}, so that this contract names no JSON
 *       library. A provider without such a pass never implements it.
 * </ul>
 */
public sealed interface Payload permits Payload.Text, Payload.Bytes, Payload.Parsed {
    /**
     * The payload as JSON text, exactly as the broker carried it; null when the record carried none. For bytes and
     * parsed payloads it is built on demand (a failure's reason, a JSON tree type, a retry copy).
     */
    String json();

    /** JSON text as the broker carried it; {@code json} is null when the record carried no payload. */
    record Text(String json) implements Payload {}

    /**
     * UTF-8 JSON bytes, from the buffer's position to its limit: best a heap buffer over the record's own array (a
     * slice, no copy); a read-only or direct buffer is copied once before it is decoded.
     */
    record Bytes(ByteBuffer utf8) implements Payload {
        @Override
        public String json() {
            ByteBuffer b = utf8.duplicate();
            byte[] copy = new byte[b.remaining()];
            b.get(copy);
            return new String(copy, StandardCharsets.UTF_8);
        }
    }

    /**
     * A payload the provider read in its own pass over the record: its tokens, or the value bound to the task's type
     * in that pass. Implemented only by the core's {@code JsonTokens}; the core decodes any other implementation
     * from {@link #json()}.
     */
    non-sealed interface Parsed extends Payload {}
}
