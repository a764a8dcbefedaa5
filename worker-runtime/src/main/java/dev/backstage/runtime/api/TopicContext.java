package dev.backstage.runtime.api;

import java.time.Instant;

/** What a topic handler knows about the message it is running. */
public interface TopicContext {
    String topic();

    String messageId();

    int deliveryCount();

    Instant publishedAt();
}
