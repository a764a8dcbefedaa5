package dev.backstage.runtime.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Reads a jobs topic from the start with a group-less consumer: the job ids each partition holds. */
final class ClusterReader implements AutoCloseable {
    private static final Pattern JOB_ID = Pattern.compile("\"jobId\"\\s*:\\s*\"([^\"]+)\"");
    private final KafkaConsumer<byte[], byte[]> consumer;

    ClusterReader(String bootstrap) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2_000);
        consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** Partition → job ids in offset order, up to the end offsets at the call. */
    Map<Integer, List<String>> readAll(String topic) {
        List<TopicPartition> parts = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(topic, p.partition()))
                .toList();
        consumer.assign(parts);
        consumer.seekToBeginning(parts);
        Map<TopicPartition, Long> end = consumer.endOffsets(parts, Duration.ofSeconds(30));
        Map<Integer, List<String>> out = new TreeMap<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline && !parts.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp))) {
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                Matcher m = JOB_ID.matcher(new String(record.value(), java.nio.charset.StandardCharsets.UTF_8));
                if (m.find()) {
                    out.computeIfAbsent(record.partition(), p -> new ArrayList<>())
                            .add(m.group(1));
                }
            }
        }
        return out;
    }

    @Override
    public void close() {
        consumer.close(Duration.ofSeconds(5));
    }
}
