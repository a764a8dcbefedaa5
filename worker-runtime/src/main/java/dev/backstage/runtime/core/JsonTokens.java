package dev.backstage.runtime.core;

import com.fasterxml.jackson.core.JsonParser;
import dev.backstage.runtime.spi.Payload;
import java.io.IOException;

/**
 * The core's parsed form of a payload ({@link Payload.Parsed}): what a provider offers when it reads the payload's
 * JSON tokens while reading the rest of its record (one pass over the record: envelope and payload). The core
 * binds those tokens to the task's type without parsing the text again, or has the provider bind the payload in
 * the middle of that pass ({@link #readBinding}). It lives in the core, not in the {@code spi}, so that the
 * provider contract carries no Jackson types; {@link PayloadCodec#decode(Payload, Class)} is the one place that
 * reads it.
 */
public abstract class JsonTokens implements Payload.Parsed {
    /** What {@link #readBinding} returns when it did not bind the payload (a bound payload may be null). */
    public static final Object NOT_BOUND = new Object();

    /** The payload's tokens, a fresh parser per call; null when the record carried no payload. */
    protected abstract JsonParser tokens();

    /**
     * Reads the record now, if it was not read yet, and binds its payload as the pass reaches it, with {@code binder}
     * given the task name read before it: no token copy and no second pass. Returns the bound payload, or
     * {@link #NOT_BOUND} when it was not bound that way (read already, the task name came after the payload, the
     * binder declined or failed); the payload is then decoded from {@link #tokens()} or {@link #json()}.
     */
    protected Object readBinding(Binder binder) {
        return NOT_BOUND;
    }

    /** Binds a payload in the middle of a record's pass. */
    public interface Binder {
        /**
         * Either reads exactly one value from {@code payload} (positioned on its first token) and returns it bound,
         * or returns {@link #NOT_BOUND} without touching the parser. A failure may leave the parser anywhere: the
         * caller then reads the record again the ordinary way.
         */
        Object bind(String taskName, JsonParser payload) throws IOException;
    }
}
