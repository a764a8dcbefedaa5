package dev.backstage.runtime.spi;

/** Publish/subscribe: fan-out subscribers each get every message; a named group shares them. */
public interface TopicsCapability {
    String backend();

    String publish(String topic, String payloadJson);

    /** Starts delivering {@code subscription}'s messages to {@code sink}; settlement policy is the core's. */
    TopicConsumer subscribe(Subscription subscription, String consumerId, TopicSink sink);
}
