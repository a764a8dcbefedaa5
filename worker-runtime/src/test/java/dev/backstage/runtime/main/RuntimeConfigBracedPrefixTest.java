package dev.backstage.runtime.main;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.TaskModule;
import dev.backstage.runtime.config.RuntimeConfig;
import dev.backstage.runtime.config.RuntimeConfigFiles;
import dev.backstage.runtime.spi.ConfigurationException;
import dev.backstage.testsupport.UniqueNames;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A key prefix in braces in the runtime config ({@code provider.prefix: "{…}"}): a Redis worker in cluster mode
 * takes it and writes the seed layout in the prefix's one slot (checked on the cluster of {@code bin/lib.sh}); a
 * RabbitMQ provider refuses it before connecting, in one line.
 */
@Tag("broker")
class RuntimeConfigBracedPrefixTest {
    private static final String CLUSTER = "redis+cluster://127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002";

    private static String yaml(String provider, String prefix) {
        return """
                provider:
                  name: %s
                  urlEnv: BROKER_URL
                  prefix: "%s"
                worker:
                  queues: [orders]
                server:
                  port: 0
                """.formatted(provider, prefix);
    }

    @Test
    void givenABracedPrefixForRedisInClusterMode_whenAJobIsEnqueued_thenItRunsFromTheSeedKeyInThePrefixsSlot() {
        String tag = UniqueNames.prefix("bs-braced");
        String prefix = "{" + tag + "}";
        Set<String> done = ConcurrentHashMap.newKeySet();
        TaskModule module = binder -> binder.task("processOrder", Map.class, (ctx, p) -> {
            done.add(String.valueOf(p.get("orderId")));
            return Next.done();
        });
        RuntimeConfig config = RuntimeConfigFiles.parse(yaml("redis", prefix));
        assertEquals(prefix, config.provider().prefix());
        RedisClusterClient client = RedisClusterClient.create(RedisURI.create("127.0.0.1", 7000));
        var built = new WorkerFromConfig(Map.of("BROKER_URL", CLUSTER)::get).build(config, List.of(module), null);
        try (StatefulRedisClusterConnection<String, String> redis = client.connect()) {
            built.worker().start();
            built.worker().enqueue("processOrder", Map.of("orderId", "o-1"), EnqueueOptions.onQueue("orders"));
            await().atMost(Duration.ofSeconds(30)).until(() -> done.contains("o-1"));
            assertEquals(1, redis.sync().xlen(prefix + ":orders"), "the seed's key name");
            assertEquals(redis.sync().clusterKeyslot(tag), redis.sync().clusterKeyslot(prefix + ":orders"));
            redis.sync().del(prefix + ":orders", prefix + ":orders:dead-letter");
        } finally {
            built.worker().close();
            client.shutdown();
        }
    }

    @Test
    void givenABracedPrefixForRabbitMq_thenTheConfigIsRefusedSayingToDropTheBraces() {
        RuntimeConfig config = RuntimeConfigFiles.parse(yaml("rabbitmq", "{orders}"));
        ConfigurationException e = assertThrows(
                ConfigurationException.class,
                () -> new WorkerFromConfig(Map.of("BROKER_URL", "amqp://127.0.0.1:1")::get)
                        .build(config, List.of(), null));
        assertEquals(
                "key prefix '{orders}' is a Redis Cluster hash tag, for provider redis only: Kafka topic names cannot"
                        + " hold braces and RabbitMQ names should not; drop the braces: orders",
                e.getMessage());
    }
}
