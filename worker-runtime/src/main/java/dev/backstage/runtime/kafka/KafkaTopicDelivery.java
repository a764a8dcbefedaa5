package dev.backstage.runtime.kafka;

import dev.backstage.runtime.spi.TopicDelivery;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * One topic message, read from the topic or from the subscription's retry topic ({@link TopicRetries}).
 * Mechanics only (the core decides which one happens): ack marks the offset settled; retry produces a copy to
 * the group's own retry topic and then marks the offset settled (only this group sees it again); drop produces a
 * copy with the reason to the group's dead-letter topic and then marks it settled. When producing the copy fails,
 * the record is handed out again after a pause instead, as a broker redelivers an unacknowledged message.
 *
 * <p>Its id is the message's original {@code topic:partition:offset} on every delivery, and its delivery count the
 * retry copy's ({@link TopicRetryHeaders}) or else the value's, plus this worker's redeliveries of it.
 */
final class KafkaTopicDelivery implements TopicDelivery {
    private final String topic;
    private final ConsumerRecord<byte[], byte[]> record;
    private final SettlementTicket ticket;
    private final TopicRetries retries;
    private final TopicMessageValue value;

    KafkaTopicDelivery(
            String topic, ConsumerRecord<byte[], byte[]> record, SettlementTicket ticket, TopicRetries retries) {
        this.topic = topic;
        this.record = record;
        this.ticket = ticket;
        this.retries = retries;
        this.value = TopicMessageValue.decode(record.value(), record.timestamp());
    }

    @Override
    public String topic() {
        return topic;
    }

    @Override
    public String messageId() {
        return TopicRetryHeaders.originalId(record);
    }

    @Override
    public String payloadJson() {
        return value.payloadJson();
    }

    @Override
    public long publishedAtMs() {
        return value.publishedAtMs();
    }

    @Override
    public int deliveryCount() {
        int copy = TopicRetryHeaders.deliveryCount(record);
        return (copy > 0 ? copy : value.deliveryCount()) + ticket.redeliveries();
    }

    @Override
    public CompletionStage<Void> ack() {
        return ticket.settle(true);
    }

    @Override
    public CompletionStage<Void> retry(Duration delay, String error) {
        return settleAfter(() -> retries.retry(record, deliveryCount() + 1, delay, error));
    }

    /** Past the retry policy (or unreadable): a copy with the reason goes to the group's dead-letter topic. */
    @Override
    public CompletionStage<Void> drop(String reason) {
        return settleAfter(() -> retries.deadLetter(record, deliveryCount(), reason));
    }

    @Override
    public Optional<String> deadLetterDestination() {
        return Optional.of(retries.deadLetterTopic());
    }

    private CompletionStage<Void> settleAfter(Supplier<CompletableFuture<?>> copy) {
        CompletableFuture<?> stored;
        try {
            stored = copy.get();
        } catch (RuntimeException e) {
            ticket.redeliverLater();
            return CompletableFuture.failedFuture(e);
        }
        return stored.thenCompose(metadata -> ticket.settle(false)).whenComplete((ok, failure) -> {
            if (failure != null) {
                ticket.redeliverLater(); // ignored when the ticket was already used
            }
        });
    }

    @Override
    public void abandon() {
        ticket.abandon();
    }
}
