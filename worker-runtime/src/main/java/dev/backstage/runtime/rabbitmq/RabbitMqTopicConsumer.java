package dev.backstage.runtime.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Envelope;
import dev.backstage.runtime.api.BackstageException;
import dev.backstage.runtime.api.Subscription;
import dev.backstage.runtime.spi.TopicConsumer;
import dev.backstage.runtime.spi.TopicSink;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One topic subscription on its own supervised channel (see {@link RabbitMqTopics} for the semantics). */
final class RabbitMqTopicConsumer implements TopicConsumer {
    private static final Logger log = LoggerFactory.getLogger(RabbitMqTopicConsumer.class);

    private final RabbitMqTopics topics;
    private final Subscription subscription;
    private final int maxDeliveries;
    private final TopicSink sink;
    private final String queue;
    private final SupervisedChannel channel;

    RabbitMqTopicConsumer(RabbitMqTopics topics, Subscription subscription, String consumerId, int maxDeliveries,
            TopicSink sink, Connection connection, ScheduledExecutorService supervisor, int prefetch,
            Duration supervisionInterval) {
        this.topics = topics;
        this.subscription = subscription;
        this.maxDeliveries = maxDeliveries;
        this.sink = sink;
        RabbitMqNames names = topics.names();
        boolean fanOut = subscription.isFanOut();
        this.queue = fanOut
                ? names.topicFanOutQueue(subscription.topic(), consumerId, UUID.randomUUID().toString().substring(0, 8))
                : names.topicGroupQueue(subscription.topic(), subscription.group());
        String label = (fanOut ? "fan-out" : "group " + subscription.group()) + " on topic " + subscription.topic();
        SupervisedChannel.Subscription consume = new SupervisedChannel.Subscription(label,
                consumerId + "-topic-" + subscription.topic() + (fanOut ? "" : "-" + subscription.group()), ch -> {
                    ch.exchangeDeclare(names.topicsExchange(), "topic", true, false, null);
                    // Fan-out: exclusive + auto-delete, gone with the connection; a group queue outlives its members.
                    ch.queueDeclare(queue, !fanOut, fanOut, fanOut, null);
                    ch.queueBind(queue, names.topicsExchange(), subscription.topic());
                    return queue;
                });
        this.channel = new SupervisedChannel("rabbitmq topic consumer (" + label + ")", connection, prefetch,
                List.of(consume), this::onDelivery, supervisor, supervisionInterval);
    }

    void start() {
        channel.start();
    }

    private void onDelivery(long epoch, String consumerTag, Envelope envelope, AMQP.BasicProperties properties,
            byte[] bytes) throws IOException {
        TopicBody body = TopicBody.decode(topics.mapper(), bytes);
        long tag = envelope.getDeliveryTag();
        if (body.malformedReason() != null) {
            // Topics have no dead-letter destination: say so loudly and drop it rather than loop forever.
            log.warn("topic '{}': dropping a message that is not a topic message: {}", subscription.topic(),
                    body.malformedReason());
            channel.ack(epoch, tag);
            return;
        }
        String messageId = properties.getMessageId() != null ? properties.getMessageId() : String.valueOf(tag);
        sink.accept(new RabbitMqTopicDelivery(this, subscription.topic(), messageId, body, envelope.isRedeliver(),
                tag, epoch));
    }

    CompletableFuture<Void> ack(long epoch, long tag) {
        try {
            channel.ack(epoch, tag);
            return CompletableFuture.completedFuture(null);
        } catch (IOException | AlreadyClosedException | BackstageException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    CompletableFuture<Void> fail(RabbitMqTopicDelivery delivery, String error) {
        if (delivery.deliveryCount() >= maxDeliveries) {
            log.warn("topic '{}': message {} failed {} times (max {}), dropping it: {}", subscription.topic(),
                    delivery.messageId(), delivery.deliveryCount(), maxDeliveries, error);
            return ack(delivery.epoch(), delivery.tag());
        }
        CompletableFuture<Void> copied;
        try {
            channel.checkCurrent(delivery.epoch(), delivery.tag());
            byte[] copy = TopicBody.encode(topics.mapper(), delivery.payloadJson(), delivery.publishedAtMs(),
                    delivery.deliveryCount() + 1);
            copied = topics.publisher().publish("", queue, true, RabbitMqTopics.properties(delivery.messageId()), copy);
        } catch (RuntimeException e) {
            copied = CompletableFuture.failedFuture(e);
        }
        return copied.thenCompose(ignored -> ack(delivery.epoch(), delivery.tag()));
    }

    String queue() {
        return queue;
    }

    @Override
    public void close() {
        channel.stopConsuming();
        channel.close();
    }
}
