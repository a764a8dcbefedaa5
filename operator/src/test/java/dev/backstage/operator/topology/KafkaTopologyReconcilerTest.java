package dev.backstage.operator.topology;

import static dev.backstage.operator.topology.TopologyTestSupport.FAST;
import static dev.backstage.operator.topology.TopologyTestSupport.WAIT;
import static dev.backstage.operator.topology.TopologyTestSupport.awaitReady;
import static dev.backstage.operator.topology.TopologyTestSupport.closedPort;
import static dev.backstage.operator.topology.TopologyTestSupport.eventReasons;
import static dev.backstage.operator.topology.TopologyTestSupport.get;
import static dev.backstage.operator.topology.TopologyTestSupport.secret;
import static dev.backstage.operator.topology.TopologyTestSupport.topology;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.CapabilityBackend;
import dev.backstage.operator.model.CapabilityStatus;
import dev.backstage.operator.model.Condition;
import dev.backstage.operator.model.DeletionPolicy;
import dev.backstage.operator.model.ProviderType;
import dev.backstage.operator.model.QueueSpec;
import dev.backstage.operator.model.ReadyReason;
import dev.backstage.operator.model.SecretKeyReference;
import dev.backstage.operator.model.SuppliedCapabilities;
import dev.backstage.operator.model.TopicSpec;
import dev.backstage.operator.testing.OperatorTestHarness;
import dev.backstage.testsupport.EmbeddedKafka;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The topology reconciler against the in-process Kafka broker (KRaft), asserting on the broker's own topic list. */
@Tag("broker")
class KafkaTopologyReconcilerTest {
    private static OperatorTestHarness harness;
    private static KubernetesClient client;
    private static String bootstrap;
    private static Admin admin;

    @BeforeAll
    static void start() {
        bootstrap = EmbeddedKafka.shared().bootstrapServers();
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
        harness = OperatorTestHarness.startWithTopologies(FAST);
        client = harness.client();
    }

    @AfterAll
    static void stop() {
        harness.close();
        admin.close();
    }

    @Test
    void givenKafkaTopology_whenApplied_thenExactlyItsTopicsExistWithTheirPartitionsAndDelaysComeFromRedis()
            throws Exception {
        String ns = harness.newNamespace("kafka");
        String prefix = UniqueNames.prefix("bs-kafka");
        BackstageTopology topology = kafkaTopology(ns, prefix);
        topology.getSpec().setQueues(List.of(new QueueSpec("orders", 3, 1), new QueueSpec("emails", null, null)));
        TopicSpec audit = new TopicSpec("audit");
        audit.setPartitions(2);
        topology.getSpec().setTopics(List.of(audit));
        client.resource(topology).create();

        awaitReady(client, ns, "orders", ReadyReason.DECLARED);
        assertEquals(
                Set.of(
                        prefix + ".orders",
                        prefix + ".orders.dead-letter",
                        prefix + ".emails",
                        prefix + ".emails.dead-letter",
                        prefix + ".topic.audit"),
                topics(prefix));
        Map<String, TopicDescription> described =
                admin.describeTopics(topics(prefix)).allTopicNames().get(10, TimeUnit.SECONDS);
        assertEquals(3, described.get(prefix + ".orders").partitions().size());
        assertEquals(
                1, described.get(prefix + ".orders.dead-letter").partitions().size());
        assertEquals(1, described.get(prefix + ".emails").partitions().size());
        assertEquals(2, described.get(prefix + ".topic.audit").partitions().size(), "a topic's own sizing is applied");

        Map<String, CapabilityStatus> capabilities = get(client, ns, "orders").getStatus().getCapabilities().stream()
                .collect(Collectors.toMap(CapabilityStatus::getCapability, c -> c));
        assertEquals("kafka", capabilities.get("jobs").getBackend());
        assertEquals("kafka", capabilities.get("topics").getBackend());
        assertEquals("redis", capabilities.get("delays").getBackend());
        assertTrue(capabilities.get("delays").getDetail().contains("supplied separately"));
        assertFalse(capabilities.get("dedupe").getSupplied(), "nothing supplies dedupe");
        assertEquals(5, get(client, ns, "orders").getStatus().getObjects().size());
    }

    @Test
    void givenDeclaredTopology_whenATopicIsDeletedOnTheBroker_thenItIsCreatedAgainWithItsPartitions() {
        String ns = harness.newNamespace("kdrift");
        String prefix = UniqueNames.prefix("bs-kdrift");
        BackstageTopology topology = kafkaTopology(ns, prefix);
        topology.getSpec().setQueues(List.of(new QueueSpec("orders", 2, 1)));
        client.resource(topology).create();
        awaitReady(client, ns, "orders", ReadyReason.DECLARED);

        admin.deleteTopics(List.of(prefix + ".orders"));

        await("topic " + prefix + ".orders re-created with 2 partitions")
                .atMost(WAIT)
                .untilAsserted(() -> {
                    assertTrue(eventReasons(client, ns).contains("BrokerObjectsRedeclared"));
                    assertEquals(
                            2,
                            admin.describeTopics(List.of(prefix + ".orders"))
                                    .allTopicNames()
                                    .get(10, TimeUnit.SECONDS)
                                    .get(prefix + ".orders")
                                    .partitions()
                                    .size());
                });
        awaitReady(client, ns, "orders", ReadyReason.DECLARED);
    }

    @Test
    void givenKafkaTopologyWithoutDelays_thenTopicsAreDeclaredButReadyIsFalseCapabilityMissing() {
        String ns = harness.newNamespace("knodelays");
        String prefix = UniqueNames.prefix("bs-knodelays");
        BackstageTopology topology = kafkaTopology(ns, prefix);
        topology.getSpec().setCapabilities(null);
        client.resource(topology).create();

        Condition missing = awaitReady(client, ns, "orders", ReadyReason.CAPABILITY_MISSING);
        assertTrue(missing.getMessage().contains("set spec.capabilities.delays"), missing.getMessage());
        assertEquals(Set.of(prefix + ".orders", prefix + ".orders.dead-letter"), topics(prefix));
    }

    @Test
    void givenDeletePolicy_whenTopologyDeleted_thenItsTopicsAreDeleted() {
        String ns = harness.newNamespace("kdelete");
        String prefix = UniqueNames.prefix("bs-kdelete");
        BackstageTopology topology = kafkaTopology(ns, prefix);
        topology.getSpec().setDeletionPolicy(DeletionPolicy.DELETE);
        client.resource(topology).create();
        awaitReady(client, ns, "orders", ReadyReason.DECLARED);
        assertEquals(2, topics(prefix).size());

        client.resources(BackstageTopology.class)
                .inNamespace(ns)
                .withName("orders")
                .delete();

        await().atMost(WAIT).untilAsserted(() -> assertNull(get(client, ns, "orders")));
        await("topics deleted").atMost(WAIT).untilAsserted(() -> assertEquals(Set.of(), topics(prefix)));
        await().atMost(WAIT).until(() -> eventReasons(client, ns).contains("BrokerObjectsDeleted"));
    }

    @Test
    void givenRetainPolicy_whenTopologyDeleted_thenTheTopicsStay() {
        String ns = harness.newNamespace("kretain");
        String prefix = UniqueNames.prefix("bs-kretain");
        client.resource(kafkaTopology(ns, prefix)).create();
        awaitReady(client, ns, "orders", ReadyReason.DECLARED);

        client.resources(BackstageTopology.class)
                .inNamespace(ns)
                .withName("orders")
                .delete();

        await().atMost(WAIT).untilAsserted(() -> assertNull(get(client, ns, "orders")));
        assertEquals(Set.of(prefix + ".orders", prefix + ".orders.dead-letter"), topics(prefix));
    }

    @Test
    void givenUnreachableBootstrapServers_thenReadyFalseBrokerUnreachable_andWhenFixedItRecovers() {
        String ns = harness.newNamespace("kdown");
        String prefix = UniqueNames.prefix("bs-kdown");
        BackstageTopology topology = kafkaTopology(ns, prefix);
        secret(client, ns, "kafka-url", "127.0.0.1:" + closedPort());
        client.resource(topology).create();

        Condition down = awaitReady(client, ns, "orders", ReadyReason.BROKER_UNREACHABLE);
        assertTrue(down.getMessage().contains("kafka"), down.getMessage());
        assertEquals(Set.of(), topics(prefix));

        secret(client, ns, "kafka-url", bootstrap);
        awaitReady(client, ns, "orders", ReadyReason.DECLARED);
        assertEquals(Set.of(prefix + ".orders", prefix + ".orders.dead-letter"), topics(prefix));
    }

    /** A Kafka topology with queue {@code orders}, delays supplied by the real Redis; Secrets created. */
    private static BackstageTopology kafkaTopology(String ns, String prefix) {
        secret(client, ns, "kafka-url", bootstrap);
        secret(client, ns, "redis-url", "redis://127.0.0.1:6379");
        BackstageTopology topology = topology(ns, "orders", ProviderType.KAFKA, prefix, "kafka-url", "orders");
        topology.getSpec()
                .setCapabilities(new SuppliedCapabilities(
                        new CapabilityBackend(ProviderType.REDIS, new SecretKeyReference("redis-url", "url"), null),
                        null));
        return topology;
    }

    private static Set<String> topics(String prefix) {
        try {
            return admin.listTopics().names().get(10, TimeUnit.SECONDS).stream()
                    .filter(t -> t.startsWith(prefix + "."))
                    .collect(Collectors.toCollection(TreeSet::new));
        } catch (Exception e) {
            throw new AssertionError("listing topics", e);
        }
    }
}
