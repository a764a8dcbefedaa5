package dev.backstage.runtime.rabbitmq;

import dev.backstage.runtime.spi.Delivery;
import dev.backstage.runtime.spi.JobMeta;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * One delivery from a RabbitMQ work queue.
 *
 * <p>Delivery count: the body's {@code deliveryCount}, plus one when the broker flags a redelivery
 * (docs/wire-format.md). Job id: the body's {@code jobId}; a body without one (a seed producer) takes the message's
 * AMQP {@code message-id} when its producer set one (kept on the dead letter, so a redrive restores it), else
 * its {@code originalId}, else the id of this delivery. That fallback is {@code <consumer tag>:<delivery tag>},
 * not the bare tag, because tags restart on every channel; a retry copy carries it on as {@code jobId}.
 */
final class RabbitMqDelivery implements Delivery {
    private final RabbitMqJobConsumer consumer;
    private final String queue;
    private final JobBody body;
    private final long deliveryTag;
    private final boolean redelivered;
    private final String consumerTag;
    private final long epoch;
    private final String messageId;

    /** @param messageId the message's AMQP {@code message-id} as the producer set it, or null */
    RabbitMqDelivery(
            RabbitMqJobConsumer consumer,
            String queue,
            JobBody body,
            long deliveryTag,
            boolean redelivered,
            String consumerTag,
            long epoch,
            String messageId) {
        this.messageId = messageId == null || messageId.isBlank() ? null : messageId;
        this.consumer = consumer;
        this.queue = queue;
        this.body = body;
        this.deliveryTag = deliveryTag;
        this.redelivered = redelivered;
        this.consumerTag = consumerTag;
        this.epoch = epoch;
    }

    @Override
    public String queue() {
        return queue;
    }

    @Override
    public String taskName() {
        return body.taskName();
    }

    @Override
    public String payloadJson() {
        return body.payloadJson();
    }

    @Override
    public long enqueuedAtMs() {
        return body.enqueuedAtMs();
    }

    @Override
    public JobMeta meta() {
        return body.meta();
    }

    @Override
    public int deliveryCount() {
        return redelivered ? body.deliveryCount() + 1 : body.deliveryCount();
    }

    @Override
    public String jobId() {
        if (body.jobId() != null) {
            return body.jobId();
        }
        if (messageId != null) {
            return messageId; // a producer that sets the AMQP message id (and not ours): its id is the job's
        }
        if (body.originalId() != null) {
            return body.originalId();
        }
        return consumerTag + ":" + deliveryTag;
    }

    /** The delivery tag, as the seed writes {@code originalId}. */
    @Override
    public String deliveryId() {
        return String.valueOf(deliveryTag);
    }

    @Override
    public Optional<String> malformedReason() {
        return Optional.ofNullable(body.malformedReason());
    }

    @Override
    public CompletionStage<Void> ack() {
        return consumer.ack(epoch, deliveryTag);
    }

    @Override
    public CompletionStage<Void> retry(Duration delay, String error) {
        return consumer.retry(this, delay);
    }

    @Override
    public CompletionStage<Void> deadLetter(String error) {
        return consumer.deadLetter(this, error);
    }

    /** Back to the head of the queue after a short pause (see {@link RabbitMqJobConsumer#requeueLater}). */
    @Override
    public void abandon() {
        consumer.requeueLater(epoch, deliveryTag);
    }

    JobBody body() {
        return body;
    }

    long deliveryTag() {
        return deliveryTag;
    }

    long epoch() {
        return epoch;
    }
}
