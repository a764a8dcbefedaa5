package dev.backstage.runtime.core;

import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;

/**
 * Implemented, in addition to {@link dev.backstage.runtime.spi.Delivery}, by a provider's delivery that read its
 * payload's JSON tokens while reading the rest of the record (one pass over the record: envelope and payload).
 * The core then binds those tokens to the task's type without parsing the text again. It lives in the core, not
 * in the {@code spi}, so that the provider contract carries no Jackson types; a delivery without it is decoded
 * from {@link dev.backstage.runtime.spi.Delivery#payloadBytes()} or
 * {@link dev.backstage.runtime.spi.Delivery#payloadJson()}.
 */
public interface PayloadTokens {
    /** What {@link #readBinding} returns when it did not bind the payload (a bound payload may be null). */
    Object NOT_BOUND = new Object();

    /** The payload's tokens, a fresh parser per call; null when the record carried no payload. */
    JsonParser payloadTokens();

    /**
     * Reads the record now, if it was not read yet, and binds its payload as the pass reaches it, with {@code binder}
     * given the task name read before it: no token copy and no second pass. Returns the bound payload, or
     * {@link #NOT_BOUND} when it was not bound that way (read already, the task name came after the payload, the
     * binder declined or failed); the payload is then decoded as without this call.
     */
    default Object readBinding(Binder binder) {
        return NOT_BOUND;
    }

    /** Binds a payload in the middle of a record's pass. */
    interface Binder {
        /**
         * Either reads exactly one value from {@code payload} (positioned on its first token) and returns it bound,
         * or returns {@link #NOT_BOUND} without touching the parser. A failure may leave the parser anywhere: the
         * caller then reads the record again the ordinary way.
         */
        Object bind(String taskName, JsonParser payload) throws IOException;
    }
}
