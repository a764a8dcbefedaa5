package dev.backstage.runtime.spi;

import java.util.concurrent.CompletionStage;

/** One topic message. {@link #fail} leaves it for redelivery (dropped after max deliveries). */
public interface TopicDelivery {
    String topic();

    String messageId();

    String payloadJson();

    long publishedAtMs();

    int deliveryCount();

    CompletionStage<Void> ack();

    CompletionStage<Void> fail(String error);
}
