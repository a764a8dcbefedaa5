package dev.backstage.runtime.kafka;

import dev.backstage.runtime.spi.TopicDelivery;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * One topic message. Mechanics only: a retry hands the same record out again to this subscription after the
 * back-off (uncommitted meanwhile; nothing is republished, so no other group receives it again), a drop
 * marks it settled. Its delivery count is the value's plus this worker's redeliveries of it.
 */
final class KafkaTopicDelivery implements TopicDelivery {
    private final String topic;
    private final ConsumerRecord<byte[], byte[]> record;
    private final SettlementTicket ticket;
    private final TopicMessageValue value;

    KafkaTopicDelivery(String topic, ConsumerRecord<byte[], byte[]> record, SettlementTicket ticket) {
        this.topic = topic;
        this.record = record;
        this.ticket = ticket;
        this.value = TopicMessageValue.decode(record.value(), record.timestamp());
    }

    @Override
    public String topic() {
        return topic;
    }

    @Override
    public String messageId() {
        return record.topic() + ":" + record.partition() + ":" + record.offset();
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
        return value.deliveryCount() + ticket.redeliveries();
    }

    @Override
    public CompletionStage<Void> ack() {
        return ticket.settle(true);
    }

    @Override
    public CompletionStage<Void> retry(Duration delay, String error) {
        ticket.redeliverAfter(delay);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<Void> drop(String reason) {
        return ticket.settle(false);
    }

    @Override
    public void abandon() {
        ticket.abandon();
    }
}
