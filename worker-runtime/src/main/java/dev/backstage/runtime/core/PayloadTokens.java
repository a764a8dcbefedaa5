package dev.backstage.runtime.core;

import com.fasterxml.jackson.core.JsonParser;

/**
 * Implemented, in addition to {@link dev.backstage.runtime.spi.Delivery}, by a provider's delivery that read its
 * payload's JSON tokens while reading the rest of the record (one pass over the record: envelope and payload).
 * The core then binds those tokens to the task's type without parsing the text again. It lives in the core, not
 * in the {@code spi}, so that the provider contract carries no Jackson types; a delivery without it is decoded
 * from {@link dev.backstage.runtime.spi.Delivery#payloadBytes()} or
 * {@link dev.backstage.runtime.spi.Delivery#payloadJson()}.
 */
public interface PayloadTokens {
    /** The payload's tokens, a fresh parser per call; null when the record carried no payload. */
    JsonParser payloadTokens();
}
