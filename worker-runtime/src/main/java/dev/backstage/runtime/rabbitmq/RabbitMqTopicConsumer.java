package dev.backstage.runtime.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Envelope;
import dev.backstage.runtime.spi.BackstageException;
import dev.backstage.runtime.spi.TopicConsumer;
import dev.backstage.runtime.spi.TopicSink;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One fan-out or group reader on its own supervised channel: a topic subscription (see {@link RabbitMqTopics}) or
 * a worker's broadcast listener (see {@link RabbitMqBroadcast}). The {@link BodyFormat} says how a body reads and
 * how the copy a retry publishes is written.
 */
final class RabbitMqTopicConsumer implements TopicConsumer {
    private static final Logger log = LoggerFactory.getLogger(RabbitMqTopicConsumer.class);

    /** How this reader's message bodies read, and how a retry's copy is written. */
    interface BodyFormat {
        /** The delivery's {@code topic()} (a broadcast: its task name) and the body as a topic body. */
        Received decode(byte[] bytes);

        /** The body of the copy a retry publishes: the same message with {@code deliveryCount}. */
        byte[] copy(RabbitMqTopicDelivery delivery, int deliveryCount);
    }

    record Received(String topic, TopicBody body) {}

    private final ConfirmingPublisher publisher;
    private final BodyFormat format;
    private final TopicSink sink;
    private final ScheduledExecutorService supervisor;
    private final String queue;
    private final TopicDeadLetters deadLetters;
    private final SupervisedChannel channel;

    /**
     * @param queue       the queue {@code setup} declares and binds (client-named, so a retry can publish to it by
     *                    name)
     * @param deadLetters where a drop keeps a copy with the reason, or null when a drop only acks
     */
    RabbitMqTopicConsumer(
            ConfirmingPublisher publisher,
            BodyFormat format,
            String label,
            String consumerTag,
            String queue,
            SupervisedChannel.QueueSetup setup,
            TopicSink sink,
            Connection connection,
            ScheduledExecutorService supervisor,
            int prefetch,
            Duration supervisionInterval,
            TopicDeadLetters deadLetters) {
        this.publisher = publisher;
        this.format = format;
        this.sink = sink;
        this.supervisor = supervisor;
        this.queue = queue;
        this.deadLetters = deadLetters;
        SupervisedChannel.Subscription consume = new SupervisedChannel.Subscription(label, consumerTag, setup);
        this.channel = new SupervisedChannel(
                "rabbitmq consumer (" + label + ")",
                connection,
                prefetch,
                List.of(consume),
                this::onDelivery,
                supervisor,
                supervisionInterval);
    }

    void start() {
        channel.start();
    }

    private void onDelivery(
            long epoch, String consumerTag, Envelope envelope, AMQP.BasicProperties properties, byte[] bytes)
            throws IOException {
        Received received = format.decode(bytes);
        long tag = envelope.getDeliveryTag();
        // A message that cannot be read reaches the core too, which drops it with the reason.
        String messageId = properties.getMessageId() != null ? properties.getMessageId() : String.valueOf(tag);
        sink.accept(new RabbitMqTopicDelivery(
                this,
                received.topic(),
                messageId,
                received.body(),
                envelope.isRedeliver(),
                tag,
                epoch,
                properties,
                bytes));
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
     * back-off redelivers it rather than losing it. Only this reader sees the copy.
     */
    CompletableFuture<Void> retry(RabbitMqTopicDelivery delivery, Duration delay) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Runnable copyThenAck = () -> {
            CompletableFuture<Void> copied;
            try {
                channel.checkCurrent(delivery.epoch(), delivery.tag());
                byte[] copy = format.copy(delivery, delivery.deliveryCount() + 1);
                copied = publisher.publish("", queue, true, RabbitMqTopics.properties(delivery.messageId()), copy);
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

    /** A copy to the subscription's dead-letter queue, then (once confirmed) the ack of the original. */
    CompletableFuture<Void> deadLetter(RabbitMqTopicDelivery delivery, String reason) {
        if (deadLetters == null) {
            return ack(delivery.epoch(), delivery.tag());
        }
        CompletableFuture<Void> copied;
        try {
            channel.checkCurrent(delivery.epoch(), delivery.tag());
            copied = deadLetters.publish(delivery, reason);
        } catch (RuntimeException e) {
            copied = CompletableFuture.failedFuture(e);
        }
        return copied.thenCompose(ignored -> ack(delivery.epoch(), delivery.tag()));
    }

    Optional<String> deadLetterQueue() {
        return deadLetters == null ? Optional.empty() : Optional.of(deadLetters.queue());
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
