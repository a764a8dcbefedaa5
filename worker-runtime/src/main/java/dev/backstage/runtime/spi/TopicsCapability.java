package dev.backstage.runtime.spi;

import dev.backstage.runtime.api.Subscription;

/** Publish/subscribe: fan-out subscribers each get every message; a named group shares them. */
public interface TopicsCapability {
    String backend();

    String publish(String topic, String payloadJson);

    TopicConsumer subscribe(Subscription subscription, String consumerId, int maxDeliveries, TopicSink sink);
}
