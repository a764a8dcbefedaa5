package dev.backstage.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("broker")
class EmbeddedKafkaTest {

    @Test
    void givenSharedBroker_whenProducingAndConsumingWithAGroup_thenRecordsRoundTripAndTheBrokerIsReused()
            throws Exception {
        EmbeddedKafka kafka = EmbeddedKafka.shared();
        assertSame(kafka, EmbeddedKafka.shared());
        String topic = UniqueNames.prefix("embedded-smoke");
        try (var producer = new KafkaProducer<String, String>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        kafka.bootstrapServers(),
                        ProducerConfig.ACKS_CONFIG,
                        "all"),
                new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < 3; i++) {
                producer.send(new ProducerRecord<>(topic, "v" + i)).get();
            }
        }
        List<String> seen = new ArrayList<>();
        try (var consumer = new KafkaConsumer<String, String>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                        ConsumerConfig.GROUP_ID_CONFIG, UniqueNames.prefix("embedded-smoke-group"),
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
                new StringDeserializer(),
                new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (seen.size() < 3 && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    seen.add(r.value());
                }
            }
            consumer.commitSync();
        }
        assertEquals(List.of("v0", "v1", "v2"), seen);
    }
}
