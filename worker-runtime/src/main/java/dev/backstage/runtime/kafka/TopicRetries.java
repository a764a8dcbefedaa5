package dev.backstage.runtime.kafka;

import dev.backstage.runtime.spi.ConfigurationException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The two topics private to one topic subscription's consumer group: its retry topic
 * {@code {p}.topic.{t}.{g}.retry}, which the subscription's own consumer reads beside the topic, and its
 * dead-letter topic {@code {p}.topic.{t}.{g}.dead-letter} ({@link KafkaNames}). Mechanics only; the core decides
 * which copy is made ({@code TopicOutcomes}).
 *
 * <p>A retry copy is the original record's bytes with {@link TopicRetryHeaders} (next delivery count, due time,
 * the original topic/partition/offset, the error). It is produced and acknowledged by every in-sync replica
 * before the original is marked settled, so the original's commit moves on at once and no other group ever sees
 * the retry; a crash after that reads the copy from the retry topic. The consumer holds a copy that is not due
 * in memory ({@link RecordSchedule}) without committing it.
 */
final class TopicRetries implements RecordSchedule {
    private static final Logger log = LoggerFactory.getLogger(TopicRetries.class);
    /** Kafka's longest topic name. */
    private static final int MAX_TOPIC_NAME = 249;

    private final KafkaClients clients;
    private final String retryTopic;
    private final String deadLetterTopic;

    /** Creates both topics unless they exist; a group whose name makes a topic name too long fails here. */
    TopicRetries(KafkaClients clients, String topic, String groupId) {
        this.clients = clients;
        KafkaNames names = clients.settings().names();
        this.retryTopic = names.topicRetryTopic(topic, groupId);
        this.deadLetterTopic = names.topicDeadLetterTopic(topic, groupId);
        for (String name : new String[] {retryTopic, deadLetterTopic}) {
            if (name.length() > MAX_TOPIC_NAME) {
                throw new ConfigurationException("subscription group '" + groupId + "' on topic '" + topic
                        + "' needs Kafka topic " + name + ", longer than Kafka's " + MAX_TOPIC_NAME
                        + " characters: use a shorter group name, consumer id or prefix");
            }
        }
        // The subscription's own topics (no topology declares them): created here whatever createTopics says.
        clients.ensureTopic(
                retryTopic, clients.settings().partitions(), clients.settings().replicationFactor());
        clients.ensureTopic(deadLetterTopic, 1, clients.settings().replicationFactor());
    }

    String retryTopic() {
        return retryTopic;
    }

    String deadLetterTopic() {
        return deadLetterTopic;
    }

    /** A retry copy of {@code record} due {@code delay} from now; completes once every in-sync replica has it. */
    CompletableFuture<RecordMetadata> retry(
            ConsumerRecord<byte[], byte[]> record, int nextDeliveryCount, Duration delay, String error) {
        long dueAt = System.currentTimeMillis() + Math.max(0, delay.toMillis());
        return clients.send(
                retryTopic, record.value(), TopicRetryHeaders.copyOf(record, nextDeliveryCount, dueAt, error));
    }

    /** A dead-letter copy of {@code record} with the reason; completes once every in-sync replica has it. */
    CompletableFuture<RecordMetadata> deadLetter(
            ConsumerRecord<byte[], byte[]> record, int deliveryCount, String reason) {
        return clients.send(
                deadLetterTopic, record.value(), TopicRetryHeaders.copyOf(record, deliveryCount, 0, reason));
    }

    /**
     * A fan-out group belongs to one consumer id (a process, or a pod): after its consumer closed cleanly, its two
     * topics are deleted when nothing is left in them for it — every retry copy committed, no dead letter — so
     * fan-out subscribers that come and go leave no topics behind. Otherwise they stay (a restart under the same
     * consumer id reads them again); so does everything when the cluster refuses the deletion (no {@code Delete}
     * permission): logged, never thrown.
     */
    void deleteIfDrained(String groupId) {
        try {
            KafkaOffsets offsets = new KafkaOffsets(clients.admin());
            Map<String, List<TopicPartition>> parts = offsets.partitions(List.of(retryTopic, deadLetterTopic));
            List<TopicPartition> all = new ArrayList<>();
            parts.values().forEach(all::addAll);
            Map<TopicPartition, Long> end = offsets.endOffsets(all);
            Map<TopicPartition, OffsetAndMetadata> committed = offsets.committed(groupId);
            for (TopicPartition tp : all) {
                long endOffset = end.getOrDefault(tp, 0L);
                OffsetAndMetadata om = committed.get(tp);
                boolean drained = tp.topic().equals(retryTopic)
                        ? endOffset == 0 || om != null && om.offset() >= endOffset
                        : endOffset == 0;
                if (!drained) {
                    log.info(
                            "keeping {} and {}: {} still holds records for group {}",
                            retryTopic,
                            deadLetterTopic,
                            tp,
                            groupId);
                    return;
                }
            }
            clients.admin()
                    .deleteTopics(parts.keySet())
                    .all()
                    .get(KafkaClients.ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            parts.keySet().forEach(clients::forget);
            log.info(
                    "deleted {} and {}: fan-out group {} closed with nothing pending",
                    retryTopic,
                    deadLetterTopic,
                    groupId);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            log.warn(
                    "could not delete {} and {} of closed fan-out group {}; they stay: {}",
                    retryTopic,
                    deadLetterTopic,
                    groupId,
                    e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public long dueAtMs(ConsumerRecord<byte[], byte[]> record) {
        return record.topic().equals(retryTopic) ? TopicRetryHeaders.dueAtMs(record) : 0;
    }
}
