package dev.backstage.operator.pool;

import static dev.backstage.operator.testing.BackstageFixtures.pool;
import static dev.backstage.operator.testing.BackstageFixtures.redisTopology;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.backstage.operator.model.BackoffType;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.CapabilityBackend;
import dev.backstage.operator.model.DelayedExchangeMode;
import dev.backstage.operator.model.ProviderType;
import dev.backstage.operator.model.RabbitMqSettings;
import dev.backstage.operator.model.RetryBackoffSpec;
import dev.backstage.operator.model.SecretKeyReference;
import dev.backstage.operator.model.StartPositionSpec;
import dev.backstage.operator.model.SuppliedCapabilities;
import dev.backstage.operator.model.TopicSubscriptionSpec;
import dev.backstage.operator.model.UnknownTaskMode;
import dev.backstage.runtime.config.RuntimeConfig;
import dev.backstage.runtime.config.RuntimeConfigFiles;
import dev.backstage.runtime.spi.ProviderSettings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RuntimeConfigRendererTest {
    @Test
    void givenKafkaWithRedisDelaysAndDedupe_thenEachConnectionNamesItsEnvAndPrefix() {
        BackstageTopology topology = redisTopology("ns", "t", "default");
        topology.getSpec().setProvider(ProviderType.KAFKA);
        topology.getSpec()
                .setCapabilities(new SuppliedCapabilities(
                        new CapabilityBackend(ProviderType.REDIS, new SecretKeyReference("r", "url"), null),
                        new CapabilityBackend(
                                ProviderType.REDIS, new SecretKeyReference("r", "url"), "dedupe-prefix")));
        BackstageWorkerPool pool = pool("ns", "p", "t", "default");

        RuntimeConfig config = RuntimeConfigRenderer.render(pool, topology);

        assertEquals("kafka", config.provider().name());
        assertEquals("BACKSTAGE_PROVIDER_URL", config.provider().urlEnv());
        assertEquals("redis", config.delays().name());
        assertEquals("BACKSTAGE_DELAYS_URL", config.delays().urlEnv());
        assertEquals("bs-t", config.delays().prefix(), "delays share the topology's prefix by default");
        assertEquals("BACKSTAGE_DEDUPE_URL", config.dedupe().urlEnv());
        assertEquals("dedupe-prefix", config.dedupe().prefix());
        assertNull(config.provider().url());
        assertNull(config.delays().url());
        assertEquals(
                Map.of("createTopics", "false", "replicationFactor", "3", "minInsyncReplicas", "2"),
                config.provider().options(),
                "the topology owns the topics (workers never create them) and its"
                        + " replication (default 3, min ISR 2) applies to the retry and dead-letter topics workers create");
    }

    @Test
    void givenRabbitMq_thenDelayedExchangeModeAndTheTopologysQueueTypeAreProviderOptions() {
        BackstageTopology topology = redisTopology("ns", "t", "default");
        topology.getSpec().setProvider(ProviderType.RABBITMQ);
        topology.getSpec().setRabbitmq(new RabbitMqSettings(DelayedExchangeMode.FALLBACK));

        RuntimeConfig config = RuntimeConfigRenderer.render(pool("ns", "p", "t", "default"), topology);

        assertEquals(
                Map.of("delayedExchange", "fallback", "queueType", "quorum"),
                config.provider().options(),
                "unset queueType: quorum, as the topology declares it");
        topology.getSpec().getRabbitmq().setQueueType(dev.backstage.operator.model.RabbitMqQueueType.CLASSIC);
        topology.getSpec().getRabbitmq().setDeliveryLimit(7);
        topology.getSpec().getRabbitmq().setAddresses("a:5672,b:5672");
        assertEquals(
                Map.of(
                        "delayedExchange",
                        "fallback",
                        "queueType",
                        "classic",
                        "deliveryLimit",
                        "7",
                        "addresses",
                        "a:5672,b:5672"),
                RuntimeConfigRenderer.render(pool("ns", "p", "t", "default"), topology)
                        .provider()
                        .options());
    }

    @Test
    void givenWorkerSettings_whenRendered_thenTheyAreInMillisecondsAndWireNames() {
        BackstageWorkerPool pool = pool("ns", "p", "t", "a", "b");
        pool.getSpec().setPrefetch(40);
        pool.getSpec().setMaxDeliveries(7);
        pool.getSpec().setRetryBackoff(new RetryBackoffSpec(BackoffType.FIXED, "1500ms", "1m"));
        pool.getSpec().setHardTimeout("2m");
        pool.getSpec().setUnknownTask(UnknownTaskMode.LEAVE_PENDING);
        pool.getSpec().setTopics(List.of(new TopicSubscriptionSpec("events", "audit", StartPositionSpec.EARLIEST)));

        RuntimeConfig.WorkerSection worker = RuntimeConfigRenderer.render(pool, redisTopology("ns", "t", "a", "b"))
                .worker();

        assertEquals(List.of("a", "b"), worker.queues());
        assertEquals(40, worker.prefetch());
        assertEquals(7, worker.maxDeliveries());
        assertEquals(new RuntimeConfig.BackoffSection("fixed", 1500L, 60_000L), worker.backoff());
        assertEquals(120_000L, worker.hardTimeoutMs());
        assertEquals(45_000L, worker.shutdownGraceMs());
        assertEquals("leave-pending", worker.unknownTask());
        assertEquals(List.of(new RuntimeConfig.TopicSubscription("events", "audit", "earliest")), worker.topics());
    }

    @Test
    void givenAPool_whenRendered_thenTheYamlRoundTripsThroughTheRuntimeParser_andHoldsNoSecretReference() {
        BackstageWorkerPool pool = pool("ns", "p", "t", "default");
        BackstageTopology topology = redisTopology("ns", "t", "default");
        String yaml = RuntimeConfigFiles.render(RuntimeConfigRenderer.render(pool, topology));

        assertEquals(RuntimeConfigRenderer.render(pool, topology), RuntimeConfigFiles.parse(yaml));
        assertFalse(yaml.contains("t-redis"), "Secret names stay in the Deployment, not the config:\n" + yaml);
    }

    @Test
    void givenARedisTopologyWithABracedKeyPrefix_whenRendered_thenTheYamlKeepsTheBraces_andTheRuntimeAcceptsIt() {
        BackstageTopology topology = redisTopology("ns", "t", "default");
        topology.getSpec().setKeyPrefix("{backstage}");
        String yaml =
                RuntimeConfigFiles.render(RuntimeConfigRenderer.render(pool("ns", "p", "t", "default"), topology));

        RuntimeConfig parsed = RuntimeConfigFiles.parse(yaml);
        assertEquals("{backstage}", parsed.provider().prefix(), yaml);
        assertEquals(
                "{backstage}",
                new ProviderSettings(
                                "redis",
                                "redis+cluster://127.0.0.1:7000",
                                parsed.provider().prefix(),
                                null,
                                null)
                        .prefix());
    }
}
