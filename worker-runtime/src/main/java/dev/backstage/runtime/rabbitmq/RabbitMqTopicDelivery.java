package dev.backstage.runtime.rabbitmq;

import com.rabbitmq.client.AMQP;
import dev.backstage.runtime.spi.TopicDelivery;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * One topic message; the delivery count is the body's, plus one on a broker redelivery. It keeps the original
 * bytes and properties for a dead letter ({@link TopicDeadLetters}).
 */
final class RabbitMqTopicDelivery implements TopicDelivery {
    private final RabbitMqTopicConsumer consumer;
    private final String topic;
    private final String messageId;
    private final TopicBody body;
    private final boolean redelivered;
    private final long tag;
    private final long epoch;
    private final AMQP.BasicProperties properties;
    private final byte[] bytes;

    RabbitMqTopicDelivery(
            RabbitMqTopicConsumer consumer,
            String topic,
            String messageId,
            TopicBody body,
            boolean redelivered,
            long tag,
            long epoch,
            AMQP.BasicProperties properties,
            byte[] bytes) {
        this.consumer = consumer;
        this.topic = topic;
        this.messageId = messageId;
        this.body = body;
        this.redelivered = redelivered;
        this.tag = tag;
        this.epoch = epoch;
        this.properties = properties;
        this.bytes = bytes;
    }

    @Override
    public String topic() {
        return topic;
    }

    @Override
    public String messageId() {
        return messageId;
    }

    @Override
    public String payloadJson() {
        return body.payloadJson();
    }

    @Override
    public long publishedAtMs() {
        return body.publishedAtMs();
    }

    @Override
    public int deliveryCount() {
        return redelivered ? body.deliveryCount() + 1 : body.deliveryCount();
    }

    @Override
    public CompletionStage<Void> ack() {
        return consumer.ack(epoch, tag);
    }

    @Override
    public java.util.Optional<String> malformedReason() {
        return java.util.Optional.ofNullable(body.malformedReason());
    }

    @Override
    public CompletionStage<Void> retry(java.time.Duration delay, String error) {
        return consumer.retry(this, delay);
    }

    @Override
    public CompletionStage<Void> drop(String reason) {
        return consumer.deadLetter(this, reason);
    }

    @Override
    public Optional<String> deadLetterDestination() {
        return consumer.deadLetterQueue();
    }

    @Override
    public void abandon() {
        consumer.requeue(this);
    }

    long tag() {
        return tag;
    }

    long epoch() {
        return epoch;
    }

    AMQP.BasicProperties properties() {
        return properties;
    }

    byte[] bytes() {
        return bytes;
    }
}
