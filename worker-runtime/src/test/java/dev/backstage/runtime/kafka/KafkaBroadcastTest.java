package dev.backstage.runtime.kafka;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.BroadcastContract;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.redis.RedisDelays;
import dev.backstage.runtime.redis.RedisTestSupport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Broadcast on Kafka: the contract, plus the broker's own state — the listeners create no consumer group at all
 * (only the workers' job group exists), so nothing is left behind by a worker that dies — and the record value.
 */
@Tag("broker")
class KafkaBroadcastTest extends BroadcastContract {
    private final KafkaTestSupport kafka = new KafkaTestSupport();
    private final RedisTestSupport redis = new RedisTestSupport();

    @AfterEach
    void closeBrokers() {
        workers.forEach(Worker::close);
        kafka.close();
        redis.close();
    }

    private String topic() {
        return kafka.prefix + ".broadcast";
    }

    @Override
    protected Worker.Builder builder() {
        return Worker.builder()
                .provider(kafka.provider())
                .delays(RedisDelays.connect(redis.settings()))
                .queues("jobs")
                .shutdownGrace(Duration.ofSeconds(5));
    }

    /** The groups the broker knows that belong to this test: only the job group, none for broadcast. */
    private Set<String> groups() throws Exception {
        return kafka.admin().listGroups().all().get(30, TimeUnit.SECONDS).stream()
                .map(GroupListing::groupId)
                .filter(g -> g.contains(kafka.prefix) || g.contains(kafka.group) || g.contains("broadcast"))
                .collect(Collectors.toSet());
    }

    @Override
    protected void assertListeners(List<String> consumerIds) {
        // The job group shows up once the job consumers joined; no group ever shows up for broadcast.
        await().atMost(WAIT).untilAsserted(() -> {
            assertEquals(Set.of(kafka.group), groups(), "broadcast listeners use no consumer group");
            assertEquals(
                    1,
                    kafka.admin()
                            .describeTopics(List.of(topic()))
                            .allTopicNames()
                            .get(30, TimeUnit.SECONDS)
                            .get(topic())
                            .partitions()
                            .size());
        });
    }

    @Test
    void givenAJavaBroadcast_thenTheRecordValueIsJobShapedAndStoppedWorkersLeaveNoGroup() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        Worker listener = started("listener", seen);
        listener.broadcast("cache.invalidate", Map.of("key", "user:1"));
        await().atMost(WAIT).until(() -> seen.contains("user:1@1"));
        List<ConsumerRecord<byte[], byte[]>> records = kafka.readAll(topic(), 1);
        assertEquals(1, records.size());
        String value = KafkaTestSupport.text(records.get(0));
        long enqueuedAt = Long.parseLong(value.replaceAll(".*\"enqueuedAt\":(\\d+).*", "$1"));
        assertEquals(
                "{\"taskName\":\"cache.invalidate\",\"payload\":{\"key\":\"user:1\"},\"enqueuedAt\":" + enqueuedAt
                        + ",\"meta\":{},\"deliveryCount\":1}",
                value);
        assertTrue(enqueuedAt > 1_700_000_000_000L);

        // A value a foreign producer wrote (no meta, no count) is read too.
        kafka.produceRaw(
                topic(),
                0,
                "{\"taskName\":\"cache.invalidate\",\"payload\":{\"key\":\"user:2\"},"
                        + "\"enqueuedAt\":1718900000000}");
        await().atMost(WAIT).until(() -> seen.contains("user:2@1"));

        listener.close();
        assertEquals(Set.of(kafka.group), groups(), "a stopped listener leaves no group behind");
    }
}
