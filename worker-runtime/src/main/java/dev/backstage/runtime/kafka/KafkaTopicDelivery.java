package dev.backstage.runtime.kafka;

import dev.backstage.runtime.spi.TopicDelivery;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One topic message; see {@link KafkaTopics} for what a failure does. */
final class KafkaTopicDelivery implements TopicDelivery {
    private static final Logger log = LoggerFactory.getLogger(KafkaTopicDelivery.class);

    private final String topic;
    private final ConsumerRecord<byte[], byte[]> record;
    private final SettlementTicket ticket;
    private final KafkaClients clients;
    private final int maxDeliveries;
    private final TopicMessageValue value;

    KafkaTopicDelivery(String topic, ConsumerRecord<byte[], byte[]> record, SettlementTicket ticket, KafkaClients clients,
            int maxDeliveries) {
        this.topic = topic;
        this.record = record;
        this.ticket = ticket;
        this.clients = clients;
        this.maxDeliveries = maxDeliveries;
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
        return value.deliveryCount();
    }

    @Override
    public CompletionStage<Void> ack() {
        return ticket.settle(true);
    }

    @Override
    public CompletionStage<Void> fail(String error) {
        if (value.deliveryCount() >= maxDeliveries) {
            log.warn("topic '{}' message {} dropped after {} deliveries: {}", topic, messageId(), value.deliveryCount(),
                    error);
            return ticket.settle(false);
        }
        byte[] copy = new TopicMessageValue(value.payloadJson(), value.publishedAtMs(), value.deliveryCount() + 1).encode();
        return clients.send(record.topic(), copy)
                .thenCompose(metadata -> ticket.settle(false))
                .whenComplete((ok, failure) -> {
                    if (failure != null) {
                        ticket.redeliverLater();
                    }
                });
    }
}
