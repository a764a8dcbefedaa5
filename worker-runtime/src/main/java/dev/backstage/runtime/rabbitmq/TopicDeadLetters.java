package dev.backstage.runtime.rabbitmq;

import com.rabbitmq.client.AMQP;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The dead-letter queue of one topic subscription, {@link RabbitMqNames#topicDeadLetterQueue}: durable, declared
 * at the first dead letter (so a subscription that never dead-letters leaves nothing behind; a quorum group queue
 * names it as the target of its delivery limit, so with quorum queues it comes with the group), private to the
 * group or fan-out subscriber. A dead letter is the original body, byte for byte, with the original properties
 * (its message id among them), persistent, and the reason in headers named like Kafka's topic dead-letter
 * headers: {@value #ERROR}, {@value #DELIVERY_COUNT}, {@value #DEAD_LETTERED_AT}, {@value #TOPIC}.
 */
final class TopicDeadLetters {
    static final String ERROR = "backstage-error";
    static final String DELIVERY_COUNT = "backstage-delivery-count";
    static final String DEAD_LETTERED_AT = "backstage-dead-lettered-at";
    static final String TOPIC = "backstage-topic";

    private final ConfirmingPublisher publisher;
    private final BrokerAdmin admin;
    private final String queue;
    private final Map<String, Object> arguments;
    private volatile boolean declared;

    TopicDeadLetters(ConfirmingPublisher publisher, BrokerAdmin admin, String queue, Map<String, Object> arguments) {
        this.arguments = arguments;
        this.publisher = publisher;
        this.admin = admin;
        this.queue = queue;
    }

    String queue() {
        return queue;
    }

    /** Publishes the copy; completes once the broker confirmed it (the caller acks the original only then). */
    CompletableFuture<Void> publish(RabbitMqTopicDelivery delivery, String reason) {
        if (!declared) {
            admin.ensureQueue(queue, arguments);
            declared = true;
        }
        Map<String, Object> headers = new HashMap<>();
        if (delivery.properties().getHeaders() != null) {
            headers.putAll(delivery.properties().getHeaders());
        }
        headers.put(ERROR, reason == null ? "" : reason);
        headers.put(DELIVERY_COUNT, delivery.deliveryCount());
        headers.put(DEAD_LETTERED_AT, System.currentTimeMillis());
        headers.put(TOPIC, String.valueOf(delivery.topic()));
        // Persistent, and without the original's per-message TTL: a dead letter waits for a person.
        AMQP.BasicProperties properties = delivery.properties()
                .builder()
                .deliveryMode(2)
                .expiration(null)
                .messageId(delivery.messageId())
                .headers(headers)
                .build();
        return publisher.publish("", queue, true, properties, delivery.bytes()).whenComplete((ok, error) -> {
            if (error instanceof PublishNotConfirmedException
                    && String.valueOf(error.getMessage()).contains("unroutable")) {
                declared = false; // the queue was deleted meanwhile: declare it again on the next dead letter
            }
        });
    }
}
