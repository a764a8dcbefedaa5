package dev.backstage.operator.autoscaler;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.model.AutoscalingSpec;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageTopologySpec;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.operator.model.CapabilityBackend;
import dev.backstage.operator.model.Condition;
import dev.backstage.operator.model.Conditions;
import dev.backstage.operator.model.KafkaTopologySettings;
import dev.backstage.operator.model.PartitionBacklogStatus;
import dev.backstage.operator.model.ProviderType;
import dev.backstage.operator.model.QueueBacklogStatus;
import dev.backstage.operator.model.QueueSpec;
import dev.backstage.operator.model.SecretKeyReference;
import dev.backstage.operator.model.SuppliedCapabilities;
import dev.backstage.operator.testing.BackstageFixtures;
import dev.backstage.operator.testing.OperatorTestHarness;
import dev.backstage.operator.topology.TopologySettings;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.OutgoingJob;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import dev.backstage.testsupport.EmbeddedKafka;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A pool on the in-process Kafka broker, its topics declared by the real topology reconciler: the lag per partition
 * lands in status, and the pool is capped at the partition count directly.
 */
@Tag("broker")
class KafkaAutoscalingTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static OperatorTestHarness harness;
    private static KubernetesClient client;
    private static String bootstrap;

    @BeforeAll
    static void start() {
        bootstrap = EmbeddedKafka.shared().bootstrapServers();
        harness = OperatorTestHarness.startWithTopologies(
                new TopologySettings(Duration.ofSeconds(2), 2, Duration.ofMillis(300)));
        client = harness.client();
    }

    @AfterAll
    static void stop() {
        harness.close();
    }

    @Test
    void givenALagAboveWhatThePartitionsCanServe_thenCappedAtThePartitionCount_withTheLagOfEachPartitionInStatus() {
        String ns = harness.newNamespace("kafka");
        String prefix = UniqueNames.prefix("bs-kscale");
        secret(ns, "kafka-url", bootstrap);
        secret(ns, "redis-url", RedisPoolBroker.REDIS_URL);
        client.resource(kafkaTopology(ns, prefix)).create();
        await("topology declared by the topology reconciler")
                .atMost(WAIT)
                .until(
                        () -> client.resources(BackstageTopology.class)
                                .inNamespace(ns)
                                .withName("events")
                                .get()
                                .getStatus(),
                        s -> s != null && Conditions.isTrue(s.getConditions(), Conditions.READY));

        BackstageWorkerPool pool = BackstageFixtures.pool(ns, "workers", "events", "orders");
        AutoscalingSpec autoscaling = new AutoscalingSpec();
        autoscaling.setEnabled(true);
        autoscaling.setMinReplicas(1);
        autoscaling.setMaxReplicas(10);
        autoscaling.setTargetBacklogPerReplica(2);
        autoscaling.setPollInterval("1s");
        pool.getSpec().setAutoscaling(autoscaling);
        client.resource(pool).create();

        try (Provider kafka = Providers.create(new ProviderSettings("kafka", bootstrap, prefix, null, null))) {
            for (int i = 0; i < 20; i++) {
                kafka.jobs().publish(OutgoingJob.fresh("orders", "work", "{\"n\":" + i + "}", JobMeta.NONE));
            }
        }
        System.out.println("20 records on a 3-partition topic, 2 per replica: waiting for the cap at 3");
        BackstageWorkerPoolStatus status = await().atMost(WAIT)
                .until(
                        () -> client.resources(BackstageWorkerPool.class)
                                .inNamespace(ns)
                                .withName("workers")
                                .get()
                                .getStatus(),
                        s -> s != null
                                && s.getBacklog() != null
                                && s.getBacklog().getUndelivered() == 20
                                && Integer.valueOf(3).equals(s.getDesiredReplicas()));

        Condition limited = Conditions.find(status.getConditions(), AutoscalerStatus.SCALING_LIMITED)
                .orElseThrow();
        assertEquals(Conditions.TRUE, limited.getStatus());
        assertEquals("PartitionCount", limited.getReason());
        assertTrue(limited.getMessage().contains("partitions (3)"), limited.getMessage());
        assertTrue(
                status.getLastScaleReason().contains("capped by the partition count 3; the need asks for 10"),
                status.getLastScaleReason());
        QueueBacklogStatus orders = status.getBacklog().getQueues().get(0);
        List<PartitionBacklogStatus> partitions = orders.getPartitions();
        assertEquals(
                List.of(0, 1, 2),
                partitions.stream().map(PartitionBacklogStatus::getPartition).toList());
        assertEquals(
                20L,
                partitions.stream().mapToLong(PartitionBacklogStatus::getLag).sum());
        assertEquals(
                20L,
                partitions.stream()
                        .mapToLong(PartitionBacklogStatus::getEndOffset)
                        .sum());
        partitions.forEach(p -> assertNull(p.getCommittedOffset(), "the group never committed"));
        assertEquals(0L, status.getBacklog().getInFlight(), "Kafka's in-flight records are inside the lag");
        await().atMost(WAIT)
                .until(() -> client.apps()
                                .deployments()
                                .inNamespace(ns)
                                .withName("workers")
                                .get()
                                .getSpec()
                                .getReplicas()
                        == 3);
    }

    private static void secret(String ns, String name, String url) {
        client.secrets()
                .inNamespace(ns)
                .resource(new SecretBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .addToStringData("url", url)
                        .build())
                .create();
    }

    private static BackstageTopology kafkaTopology(String ns, String prefix) {
        BackstageTopologySpec spec = new BackstageTopologySpec();
        spec.setProvider(ProviderType.KAFKA);
        spec.setConnection(new SecretKeyReference("kafka-url", "url"));
        spec.setKeyPrefix(prefix);
        spec.setQueues(List.of(new QueueSpec("orders", 3, 1)));
        spec.setKafka(new KafkaTopologySettings(1, null)); // the test broker is a single node
        spec.setCapabilities(new SuppliedCapabilities(
                new CapabilityBackend(ProviderType.REDIS, new SecretKeyReference("redis-url", "url"), null), null));
        BackstageTopology topology = new BackstageTopology();
        topology.setMetadata(
                new ObjectMetaBuilder().withNamespace(ns).withName("events").build());
        topology.setSpec(spec);
        return topology;
    }
}
