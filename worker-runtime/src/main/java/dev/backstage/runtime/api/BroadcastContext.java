package dev.backstage.runtime.api;

import java.time.Instant;

/** What a broadcast handler knows about the message it is running. */
public interface BroadcastContext {
    /** The broadcast's task name. */
    String task();

    /** The broker's id of the message (Redis: the stream entry id). */
    String messageId();

    /** 1 on the first delivery to this worker; grows with each retry of a failed handler. */
    int deliveryCount();

    /** When the sender sent it ({@code enqueuedAt}). */
    Instant sentAt();
}
