package dev.backstage.operator.autoscaler;

import static dev.backstage.operator.autoscaler.ClusterPools.WAIT;
import static dev.backstage.operator.autoscaler.ClusterPools.autoscaledPool;
import static dev.backstage.operator.autoscaler.ClusterPools.awaitStatus;
import static dev.backstage.operator.autoscaler.ClusterPools.awaitTopologyReady;
import static dev.backstage.operator.autoscaler.ClusterPools.backlogAvailable;
import static dev.backstage.operator.autoscaler.ClusterPools.deadLettersPerQueue;
import static dev.backstage.operator.autoscaler.ClusterPools.deploymentReplicas;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageTopologySpec;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.operator.model.CapabilityBackend;
import dev.backstage.operator.model.KafkaTopologySettings;
import dev.backstage.operator.model.ProviderType;
import dev.backstage.operator.model.QueueSpec;
import dev.backstage.operator.model.SecretKeyReference;
import dev.backstage.operator.model.SuppliedCapabilities;
import dev.backstage.operator.testing.OperatorTestHarness;
import dev.backstage.operator.topology.TopologySettings;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.OutgoingJob;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import dev.backstage.testsupport.KafkaCluster;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The operator on a 3-broker KRaft cluster of its own ({@link KafkaCluster}, so a broker can be killed): a topology
 * with the default replication (factor 3, min ISR 2) gets its topics replicated on every broker, and a pool reports
 * the lag and the dead letters and scales on them, also while the broker that led most of the queue's partitions is
 * dead (the probe reads end and committed offsets from the survivors).
 */
@Tag("broker")
@Tag("slow")
class KafkaClusterPoolTest {
    private static final String REDIS = System.getenv().getOrDefault("BACKSTAGE_REDIS_URL", "redis://127.0.0.1:6379");

    private static KafkaCluster kafka;
    private static Admin admin;
    private static OperatorTestHarness harness;
    private static KubernetesClient client;

    @BeforeAll
    static void start() {
        kafka = KafkaCluster.start(3);
        admin = kafka.admin();
        harness = OperatorTestHarness.startWithTopologies(
                new TopologySettings(Duration.ofSeconds(2), 2, Duration.ofMillis(300)));
        client = harness.client();
    }

    @AfterAll
    static void stop() {
        harness.close();
        admin.close();
        kafka.close();
    }

    @Test
    void givenDefaultReplicationOnThreeBrokers_whenLagAndDeadLettersGrow_thenThePoolScalesOnThem_alsoWithABrokerDead()
            throws Exception {
        String ns = harness.newNamespace("kcluster");
        String prefix = UniqueNames.prefix("bs-kcpool");
        ClusterPools.secret(client, ns, "kafka-url", kafka.bootstrapServers());
        ClusterPools.secret(client, ns, "redis-url", REDIS);
        BackstageTopology topology = topology(ns, "events", prefix);
        client.resource(topology).create();

        awaitTopologyReady(client, ns, "events");
        String orders = prefix + ".orders";
        String deadLetters = prefix + ".orders.dead-letter";
        // The topics were made through one broker; the broker this admin asks may learn of them a moment later.
        Map<String, TopicDescription> topics = await("both topics known to every broker")
                .atMost(WAIT)
                .ignoreExceptionsMatching(e -> e.getCause() instanceof UnknownTopicOrPartitionException)
                .until(
                        () -> admin.describeTopics(List.of(orders, deadLetters))
                                .allTopicNames()
                                .get(30, TimeUnit.SECONDS),
                        t -> t.size() == 2);
        assertEquals(3, topics.get(orders).partitions().size());
        topics.values()
                .forEach(t -> t.partitions()
                        .forEach(p -> assertEquals(
                                3, p.replicas().size(), t.name() + "-" + p.partition() + " replicas " + p.replicas())));
        for (String topic : List.of(orders, deadLetters)) {
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            Config config = admin.describeConfigs(List.of(resource))
                    .all()
                    .get(30, TimeUnit.SECONDS)
                    .get(resource);
            assertEquals(
                    "2", config.get(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG).value(), topic + " min ISR");
        }

        ProviderSettings settings = new ProviderSettings(
                "kafka",
                kafka.bootstrapServers(),
                prefix,
                null,
                KafkaTopologySettings.providerOptions(topology.getSpec()));
        try (Provider provider = Providers.create(settings)) {
            publish(provider, 10);
        }
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        kafka.bootstrapServers(),
                        ProducerConfig.ACKS_CONFIG,
                        "all"),
                new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < 2; i++) {
                producer.send(new ProducerRecord<>(deadLetters, "dead-" + i, "{}"))
                        .get(30, TimeUnit.SECONDS);
            }
        }
        // The pool comes after the records, so its first measurement sees all 10 (one taken while they were being
        // published could scale to 3 for 5 records, without the cap in the reason).
        client.resource(autoscaledPool(ns, "workers", "events", 1, 10, 2, "orders"))
                .create();
        System.out.println("10 records on 3 replicated partitions, 2 dead letters: waiting for the cap at 3");
        BackstageWorkerPoolStatus up = awaitStatus(
                client,
                ns,
                "workers",
                s -> backlogAvailable(s)
                        && s.getBacklog().getUndelivered() == 10
                        && s.getDeadLetters() != null
                        && s.getDeadLetters().getTotal() == 2
                        && Integer.valueOf(3).equals(s.getDesiredReplicas()));
        assertEquals(Map.of("orders", 2L), deadLettersPerQueue(up));
        assertTrue(up.getLastScaleReason().contains("capped by the partition count 3"), up.getLastScaleReason());
        await().atMost(WAIT).untilAsserted(() -> assertEquals(3, deploymentReplicas(client, ns, "workers")));

        int leader = kafka.leaderOfMostPartitions(orders);
        Instant killed = Instant.now();
        kafka.kill(leader);
        System.out.println("killed broker " + leader + " (led most of " + orders + "); enqueueing 4 more");
        try (Provider provider = Providers.create(settings)) {
            publish(provider, 4); // acks=all with min ISR 2: the two survivors hold them once leaders move
        }
        BackstageWorkerPoolStatus down = awaitStatus(
                client,
                ns,
                "workers",
                s -> backlogAvailable(s)
                        && s.getBacklog().getUndelivered() == 14
                        && s.getDeadLetters().getTotal() == 2);
        assertTrue(
                Instant.parse(down.getBacklogMeasuredAt()).isAfter(killed.minusSeconds(1)),
                "measured after the kill: " + down.getBacklogMeasuredAt() + " vs " + killed);
        assertEquals(3, deploymentReplicas(client, ns, "workers"), "still capped at the partition count");
    }

    private static void publish(Provider provider, int count) {
        for (int i = 0; i < count; i++) {
            provider.jobs().publish(OutgoingJob.fresh("orders", "work", "{\"n\":" + i + "}", JobMeta.NONE));
        }
    }

    /** Replication left to the topology's defaults (factor 3, min ISR 2), as examples/manifests/kafka.yaml. */
    private static BackstageTopology topology(String ns, String name, String prefix) {
        BackstageTopologySpec spec = new BackstageTopologySpec();
        spec.setProvider(ProviderType.KAFKA);
        spec.setConnection(new SecretKeyReference("kafka-url", "url"));
        spec.setKeyPrefix(prefix);
        spec.setQueues(List.of(new QueueSpec("orders", 3, null)));
        spec.setCapabilities(new SuppliedCapabilities(
                new CapabilityBackend(ProviderType.REDIS, new SecretKeyReference("redis-url", "url"), null), null));
        BackstageTopology topology = new BackstageTopology();
        topology.setMetadata(
                new ObjectMetaBuilder().withNamespace(ns).withName(name).build());
        topology.setSpec(spec);
        return topology;
    }
}
