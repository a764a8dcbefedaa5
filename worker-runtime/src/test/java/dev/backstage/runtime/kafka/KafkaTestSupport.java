package dev.backstage.runtime.kafka;

import static org.awaitility.Awaitility.await;

import dev.backstage.testsupport.UniqueNames;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A shared cluster of one {@link KafkaShape} (by default the in-process single broker) with a unique prefix and group
 * per test, plus raw kafka-clients access for setting up records and asserting on the brokers' own state (committed
 * offsets, end offsets, topics).
 */
final class KafkaTestSupport implements AutoCloseable {
    final KafkaShape shape;
    final String bootstrap;
    final String prefix = UniqueNames.prefix("bk");
    final String group = UniqueNames.prefix("workers");
    private Admin admin;
    private KafkaProducer<byte[], byte[]> producer;

    KafkaTestSupport() {
        this(KafkaShape.ONE_BROKER);
    }

    KafkaTestSupport(KafkaShape shape) {
        this.shape = shape;
        this.bootstrap = shape.bootstrap();
    }

    KafkaSettings settings() {
        return shape.replicated(KafkaSettings.of(bootstrap).withPrefix(prefix).withGroup(group));
    }

    KafkaProvider provider() {
        return KafkaProvider.connect(settings());
    }

    String topic(String queue) {
        return prefix + "." + queue;
    }

    synchronized Admin admin() {
        if (admin == null) {
            admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
        }
        return admin;
    }

    synchronized KafkaProducer<byte[], byte[]> producer() {
        if (producer == null) {
            producer = new KafkaProducer<>(
                    Map.of(
                            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                            bootstrap,
                            ProducerConfig.ACKS_CONFIG,
                            "all",
                            ProducerConfig.LINGER_MS_CONFIG,
                            5),
                    new ByteArraySerializer(),
                    new ByteArraySerializer());
        }
        return producer;
    }

    /** Creates {@code topic} and waits until the broker's metadata shows it (that lags the creation a little). */
    void createTopic(String topic, int partitions) throws Exception {
        NewTopic newTopic = new NewTopic(topic, partitions, shape.replicationFactor);
        if (shape.minInsyncReplicas > 0) {
            newTopic.configs(Map.of("min.insync.replicas", String.valueOf(shape.minInsyncReplicas)));
        }
        admin().createTopics(List.of(newTopic)).all().get(30, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(60))
                .ignoreExceptions()
                .until(() -> admin().describeTopics(List.of(topic))
                                .allTopicNames()
                                .get(30, TimeUnit.SECONDS)
                                .get(topic)
                                .partitions()
                                .size()
                        == partitions);
    }

    /** Produces raw values (e.g. what a seed producer writes) to {@code partition}, waiting for each ack. */
    void produceRaw(String topic, Integer partition, String... values) throws Exception {
        for (String value : values) {
            producer()
                    .send(new ProducerRecord<>(topic, partition, null, value.getBytes(StandardCharsets.UTF_8)))
                    .get(30, TimeUnit.SECONDS);
        }
    }

    /** Committed offset of {@code group} on partition 0 of {@code topic}, or -1. */
    long committed(String group, String topic, int partition) throws Exception {
        OffsetAndMetadata om = committedWithMetadata(group, topic, partition);
        return om == null ? -1 : om.offset();
    }

    OffsetAndMetadata committedWithMetadata(String group, String topic, int partition) throws Exception {
        return admin().listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS)
                .get(new TopicPartition(topic, partition));
    }

    long endOffset(String topic, int partition) throws Exception {
        TopicPartition tp = new TopicPartition(topic, partition);
        return admin().listOffsets(Map.of(tp, OffsetSpec.latest()))
                .partitionResult(tp)
                .get(30, TimeUnit.SECONDS)
                .offset();
    }

    /** Every record of {@code topic} from the start, read with a group-less consumer. */
    List<ConsumerRecord<byte[], byte[]>> readAll(String topic, int expectedAtLeast) throws Exception {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (var consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(topic, p.partition()))
                    .toList();
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            Map<TopicPartition, Long> end = consumer.endOffsets(parts);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(100)).forEach(out::add);
                boolean atEnd = parts.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
                if (atEnd && out.size() >= expectedAtLeast) {
                    break;
                }
            }
        }
        return out;
    }

    static String text(ConsumerRecord<byte[], byte[]> record) {
        return new String(record.value(), StandardCharsets.UTF_8);
    }

    @Override
    public synchronized void close() {
        if (producer != null) {
            producer.close(Duration.ofSeconds(5));
        }
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
        }
    }
}
