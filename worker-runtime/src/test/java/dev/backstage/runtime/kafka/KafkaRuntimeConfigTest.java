package dev.backstage.runtime.kafka;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.Capability;
import dev.backstage.runtime.api.CapabilityMissingException;
import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.TaskModule;
import dev.backstage.runtime.config.RuntimeConfigFiles;
import dev.backstage.runtime.main.WorkerFromConfig;
import dev.backstage.runtime.redis.RedisTestSupport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.TopicDescription;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The container path: runtime.yaml naming Kafka jobs and Redis delays → a running worker. */
@Tag("broker")
class KafkaRuntimeConfigTest {
    private final KafkaTestSupport kafka = new KafkaTestSupport();
    private final RedisTestSupport redis = new RedisTestSupport();

    @AfterEach
    void tearDown() {
        kafka.close();
        redis.close();
    }

    private String yaml(boolean withDelays) {
        return """
                provider:
                  name: kafka
                  urlEnv: KAFKA_BOOTSTRAP
                  prefix: %s
                  consumerGroup: %s
                  options: {partitions: "2", commitIntervalMs: "50"}
                %s
                worker:
                  queues: [orders]
                  concurrency: 4
                  shutdownGraceMs: 2000
                """.formatted(kafka.prefix, kafka.group, withDelays ? """
                delays:
                  name: redis
                  urlEnv: REDIS_URL
                  prefix: %s
                """.formatted(redis.prefix()) : "");
    }

    private final Map<String, String> env =
            Map.of("KAFKA_BOOTSTRAP", kafka.bootstrap, "REDIS_URL", RedisTestSupport.URL);

    @Test
    void givenKafkaJobsAndRedisDelaysInRuntimeYaml_whenStarted_thenJobsRunOnTopicsWithTheConfiguredPartitions()
            throws Exception {
        Set<String> done = ConcurrentHashMap.newKeySet();
        TaskModule module = binder -> binder.task("processOrder", Map.class, (ctx, p) -> {
            done.add(String.valueOf(p.get("orderId")));
            return Next.done();
        });
        var built = new WorkerFromConfig(env::get).build(RuntimeConfigFiles.parse(yaml(true)), List.of(module), null);
        try {
            assertTrue(
                    built.worker().capabilityReport().contains("delays  from redis (supplied)"),
                    built.worker().capabilityReport());
            built.worker().start();
            built.worker().enqueue("processOrder", Map.of("orderId", "o-1"), EnqueueOptions.onQueue("orders"));
            built.worker()
                    .schedule(
                            "processOrder",
                            Map.of("orderId", "o-2"),
                            Duration.ofMillis(300),
                            EnqueueOptions.onQueue("orders"));
            await().atMost(Duration.ofSeconds(30)).until(() -> done.containsAll(Set.of("o-1", "o-2")));
            TopicDescription topic = kafka.admin()
                    .describeTopics(List.of(kafka.topic("orders")))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(kafka.topic("orders"));
            assertEquals(2, topic.partitions().size());
        } finally {
            built.worker().close();
        }
    }

    @Test
    void givenKafkaWithoutDelaysInRuntimeYaml_whenStarted_thenItFailsAndSaysToSupplyRedisDelays() {
        var built = new WorkerFromConfig(env::get).build(RuntimeConfigFiles.parse(yaml(false)), List.of(), null);
        try {
            CapabilityMissingException e = assertThrows(CapabilityMissingException.class, built.worker()::start);
            assertEquals(Capability.DELAYS, e.capability());
            assertTrue(e.getMessage().contains("delays: {name: redis"), e.getMessage());
        } finally {
            built.worker().close();
        }
    }
}
