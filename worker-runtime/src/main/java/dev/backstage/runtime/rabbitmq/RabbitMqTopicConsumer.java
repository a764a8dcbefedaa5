package dev.backstage.runtime.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Envelope;
import dev.backstage.runtime.spi.BackstageException;
import dev.backstage.runtime.spi.Subscription;
import dev.backstage.runtime.spi.TopicConsumer;
import dev.backstage.runtime.spi.TopicSink;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One topic subscription on its own supervised channel (see {@link RabbitMqTopics} for the semantics). */
final class RabbitMqTopicConsumer implements TopicConsumer {
    private static final Logger log = LoggerFactory.getLogger(RabbitMqTopicConsumer.class);

    private final RabbitMqTopics topics;
    private final Subscription subscription;
    private final TopicSink sink;
    private final ScheduledExecutorService supervisor;
    private final String queue;
    private final SupervisedChannel channel;

    RabbitMqTopicConsumer(RabbitMqTopics topics, Subscription subscription, String consumerId, TopicSink sink, Connection connection, ScheduledExecutorService supervisor, int prefetch,
            Duration supervisionInterval) {
        this.topics = topics;
        this.subscription = subscription;
        this.sink = sink;
        this.supervisor = supervisor;
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
        // A message that is not a topic message reaches the core too, which drops it with the reason.
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

    /**
     * After {@code delay}, publishes a copy with the next delivery count to this subscription's own queue and
     * acks the original once the copy is confirmed; the original stays unacked meanwhile, so a crash during the
     * back-off redelivers it rather than losing it. Only this subscription sees the copy.
     */
    CompletableFuture<Void> retry(RabbitMqTopicDelivery delivery, Duration delay) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Runnable copyThenAck = () -> {
            CompletableFuture<Void> copied;
            try {
                channel.checkCurrent(delivery.epoch(), delivery.tag());
                byte[] copy = TopicBody.encode(topics.mapper(), delivery.payloadJson(), delivery.publishedAtMs(),
                        delivery.deliveryCount() + 1);
                copied = topics.publisher().publish("", queue, true, RabbitMqTopics.properties(delivery.messageId()), copy);
            } catch (RuntimeException e) {
                copied = CompletableFuture.failedFuture(e);
            }
            copied.thenCompose(ignored -> ack(delivery.epoch(), delivery.tag())).whenComplete((ok, error) -> {
                if (error != null) {
                    done.completeExceptionally(error);
                } else {
                    done.complete(null);
                }
            });
        };
        try {
            supervisor.schedule(copyThenAck, Math.max(0, delay.toMillis()), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            done.completeExceptionally(closing);
        }
        return done;
    }

    void requeue(RabbitMqTopicDelivery delivery) {
        try {
            channel.requeue(delivery.epoch(), delivery.tag());
        } catch (IOException | AlreadyClosedException | BackstageException e) {
            log.debug("requeue of topic message {} skipped: {}", delivery.messageId(), e.toString());
        }
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
