package dev.backstage.runtime.spi;

/**
 * Broadcast: every running worker receives every message sent after its listener started (cache invalidation,
 * configuration reload). One listener per worker process reads all broadcast task names; the core routes each
 * message to the handler registered for its task name.
 *
 * <p>A broadcast is its own capability, not a kind of topic: on Redis it is the seed SDKs' stream
 * {@code {p}:broadcast} with job-shaped entries (docs/wire-format.md), which no topics backend writes or reads.
 *
 * <p>Deliveries handed to the sink are {@link TopicDelivery topic deliveries} whose {@link TopicDelivery#topic()}
 * is the broadcast's <em>task name</em>; settlement is the core's, by the topic rule. {@code retry} must
 * redeliver to this listener only, {@code drop} and {@code ack} remove the message for this listener only.
 */
public interface BroadcastCapability {
    String backend();

    /** Sends {@code payloadJson} (JSON text) under {@code taskName} to every listening worker; returns its id. */
    String send(String taskName, String payloadJson);

    /**
     * Starts this worker's listener, positioned at the end: only messages sent after this call returns are
     * delivered. {@code consumerId} names the worker (the Redis group is {@code broadcast-{consumerId}}).
     */
    TopicConsumer listen(String consumerId, TopicSink sink);
}
