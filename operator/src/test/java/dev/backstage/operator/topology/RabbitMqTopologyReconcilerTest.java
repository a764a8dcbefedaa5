package dev.backstage.operator.topology;

import static dev.backstage.operator.topology.TopologyTestSupport.FAST;
import static dev.backstage.operator.topology.TopologyTestSupport.WAIT;
import static dev.backstage.operator.topology.TopologyTestSupport.awaitEvent;
import static dev.backstage.operator.topology.TopologyTestSupport.awaitReady;
import static dev.backstage.operator.topology.TopologyTestSupport.closedPort;
import static dev.backstage.operator.topology.TopologyTestSupport.eventReasons;
import static dev.backstage.operator.topology.TopologyTestSupport.get;
import static dev.backstage.operator.topology.TopologyTestSupport.secret;
import static dev.backstage.operator.topology.TopologyTestSupport.topology;
import static dev.backstage.operator.topology.TopologyTestSupport.visibleText;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.CapabilityStatus;
import dev.backstage.operator.model.Condition;
import dev.backstage.operator.model.DelayedExchangeMode;
import dev.backstage.operator.model.DeletionPolicy;
import dev.backstage.operator.model.ProviderType;
import dev.backstage.operator.model.RabbitMqSettings;
import dev.backstage.operator.model.ReadyReason;
import dev.backstage.operator.model.TopicSpec;
import dev.backstage.operator.testing.OperatorTestHarness;
import dev.backstage.testsupport.RabbitMqQueues;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The topology reconciler against the real RabbitMQ on 127.0.0.1:5672 (guest/guest). Broker state is read from
 * the management API (port 15672), so the test sees exactly which queues and exchanges exist.
 */
@Tag("broker")
class RabbitMqTopologyReconcilerTest {
    private static final String AMQP = "amqp://guest:guest@127.0.0.1:5672";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static OperatorTestHarness harness;
    private static KubernetesClient client;
    private static Connection amqp;
    private static HttpClient http;
    private static final List<String> PREFIXES = new java.util.concurrent.CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        harness = OperatorTestHarness.startWithTopologies(FAST);
        client = harness.client();
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(AMQP);
        amqp = factory.newConnection("rabbitmq-topology-test");
        http = HttpClient.newHttpClient();
    }

    @AfterAll
    static void stop() throws Exception {
        harness.close();
        // Again, now that no reconciler can declare anything: a poll that was declaring while a test deleted its
        // topology can leave objects behind after the test's own clean-up.
        for (String prefix : PREFIXES) {
            cleanUp(prefix);
        }
        amqp.close();
    }

    @Test
    void givenRabbitMqTopology_whenApplied_thenExactlyItsQueuesDeadLetterQueuesTopicsExchangeAndDelayLadderExist() {
        String ns = harness.newNamespace("rabbit");
        String prefix = prefix("bs-rabbit");
        secret(client, ns, "amqp-url", AMQP);
        BackstageTopology topology =
                topology(ns, "orders", ProviderType.RABBITMQ, prefix, "amqp-url", "orders", "emails");
        topology.getSpec().setTopics(List.of(new TopicSpec("audit")));
        client.resource(topology).create();

        awaitReady(client, ns, "orders", ReadyReason.DECLARED);
        Set<String> queues = names("queues", prefix);
        assertEquals(
                Set.of(
                        prefix + ".orders",
                        prefix + ".orders.dead-letter",
                        prefix + ".emails",
                        prefix + ".emails.dead-letter"),
                queues.stream()
                        .filter(q -> !q.startsWith(prefix + ".delay-level."))
                        .collect(Collectors.toSet()));
        assertFalse(
                queues.stream().noneMatch(q -> q.startsWith(prefix + ".delay-level.")),
                "the broker has no delayed-message plugin here, so auto declares the TTL ladder: " + queues);
        Set<String> exchanges = names("exchanges", prefix);
        assertTrue(exchanges.contains(prefix + ".topics"), exchanges.toString());
        assertTrue(exchanges.contains(prefix + ".delay-deliver"), exchanges.toString());
        assertTrue(durable("queues", prefix + ".orders"), "work queues are durable");
        assertEquals("quorum", queueColumn(prefix + ".orders", "type"), "a new topology's queues are quorum queues");
        assertEquals("quorum", queueColumn(prefix + ".orders.dead-letter", "type"));

        Map<String, CapabilityStatus> capabilities = get(client, ns, "orders").getStatus().getCapabilities().stream()
                .collect(Collectors.toMap(CapabilityStatus::getCapability, c -> c));
        assertEquals("rabbitmq", capabilities.get("jobs").getBackend());
        assertEquals("rabbitmq", capabilities.get("delays").getBackend());
        assertEquals("rabbitmq", capabilities.get("topics").getBackend());
        assertFalse(capabilities.get("dedupe").getSupplied());
        assertTrue(capabilities.get("dedupe").getDetail().contains("spec.capabilities.dedupe"));
        deleteAndCleanUp(ns, prefix);
    }

    @Test
    void givenDeclaredTopology_whenAQueueIsDeletedOnTheBroker_thenTheNextPollDeclaresItAgain() throws Exception {
        String ns = harness.newNamespace("rdrift");
        String prefix = prefix("bs-rdrift");
        secret(client, ns, "amqp-url", AMQP);
        client.resource(topology(ns, "orders", ProviderType.RABBITMQ, prefix, "amqp-url", "orders"))
                .create();
        awaitReady(client, ns, "orders", ReadyReason.DECLARED);

        try (Channel channel = amqp.createChannel()) {
            channel.queueDelete(prefix + ".orders");
        }
        assertFalse(names("queues", prefix).contains(prefix + ".orders"));

        await("queue " + prefix + ".orders re-declared")
                .atMost(WAIT)
                .until(() -> names("queues", prefix).contains(prefix + ".orders"));
        await().atMost(WAIT).until(() -> eventReasons(client, ns).contains("BrokerObjectsRedeclared"));
        deleteAndCleanUp(ns, prefix);
    }

    @Test
    void givenPluginModeOnABrokerWithoutThePlugin_thenReadyFalseInvalidSpecWithTheProvidersMessage() {
        String ns = harness.newNamespace("rplugin");
        String prefix = prefix("bs-rplugin");
        secret(client, ns, "amqp-url", AMQP);
        BackstageTopology topology = topology(ns, "orders", ProviderType.RABBITMQ, prefix, "amqp-url", "orders");
        RabbitMqSettings rabbit = new RabbitMqSettings(DelayedExchangeMode.PLUGIN);
        rabbit.setPluginInstalled(true);
        topology.getSpec().setRabbitmq(rabbit);
        client.resource(topology).create();

        Condition invalid = awaitReady(client, ns, "orders", ReadyReason.INVALID_SPEC);
        assertTrue(invalid.getMessage().contains("x-delayed-message"), invalid.getMessage());
        assertEquals(Set.of(), names("queues", prefix));
    }

    @Test
    void givenDeletePolicy_whenTopologyDeleted_thenItsQueuesAndExchangesAreDeleted() {
        String ns = harness.newNamespace("rdelete");
        String prefix = prefix("bs-rdelete");
        secret(client, ns, "amqp-url", AMQP);
        BackstageTopology topology = topology(ns, "orders", ProviderType.RABBITMQ, prefix, "amqp-url", "orders");
        topology.getSpec().setTopics(List.of(new TopicSpec("audit")));
        topology.getSpec().setDeletionPolicy(DeletionPolicy.DELETE);
        client.resource(topology).create();
        awaitReady(client, ns, "orders", ReadyReason.DECLARED);
        assertTrue(names("queues", prefix).contains(prefix + ".orders"));

        client.resources(BackstageTopology.class)
                .inNamespace(ns)
                .withName("orders")
                .delete();

        await().atMost(WAIT).untilAsserted(() -> assertNull(get(client, ns, "orders")));
        assertEquals(Set.of(), names("queues", prefix));
        assertEquals(Set.of(), names("exchanges", prefix));
        assertTrue(eventReasons(client, ns).contains("BrokerObjectsDeleted"));
    }

    @Test
    void givenRetainPolicy_whenTopologyDeleted_thenTheQueuesStay() {
        String ns = harness.newNamespace("rretain");
        String prefix = prefix("bs-rretain");
        secret(client, ns, "amqp-url", AMQP);
        client.resource(topology(ns, "orders", ProviderType.RABBITMQ, prefix, "amqp-url", "orders"))
                .create();
        awaitReady(client, ns, "orders", ReadyReason.DECLARED);

        client.resources(BackstageTopology.class)
                .inNamespace(ns)
                .withName("orders")
                .delete();

        await().atMost(WAIT).untilAsserted(() -> assertNull(get(client, ns, "orders")));
        assertTrue(names("queues", prefix).containsAll(Set.of(prefix + ".orders", prefix + ".orders.dead-letter")));
        cleanUp(prefix);
    }

    @Test
    void givenUnreachableBroker_thenBrokerUnreachableWithoutThePassword_andAfterTheSecretIsFixedItRecovers() {
        String ns = harness.newNamespace("rdown");
        String prefix = prefix("bs-rdown");
        String password = "s3cret-" + UniqueNames.prefix("pw");
        secret(client, ns, "amqp-url", "amqp://guest:" + password + "@127.0.0.1:" + closedPort());
        client.resource(topology(ns, "orders", ProviderType.RABBITMQ, prefix, "amqp-url", "orders"))
                .create();

        awaitReady(client, ns, "orders", ReadyReason.BROKER_UNREACHABLE);
        awaitEvent(client, ns, ReadyReason.BROKER_UNREACHABLE);
        assertFalse(visibleText(client, ns, "orders").contains(password));

        secret(client, ns, "amqp-url", AMQP);
        awaitReady(client, ns, "orders", ReadyReason.DECLARED);
        assertTrue(names("queues", prefix).contains(prefix + ".orders"));
        deleteAndCleanUp(ns, prefix);
    }

    @Test
    void givenWrongPassword_thenReadyFalseAuthenticationFailedWithoutThePassword() {
        String ns = harness.newNamespace("rauth");
        String password = "wrong-" + UniqueNames.prefix("pw");
        secret(client, ns, "amqp-url", "amqp://guest:" + password + "@127.0.0.1:5672");
        client.resource(topology(ns, "orders", ProviderType.RABBITMQ, prefix("bs-rauth"), "amqp-url", "orders"))
                .create();

        awaitReady(client, ns, "orders", ReadyReason.AUTHENTICATION_FAILED);
        awaitEvent(client, ns, ReadyReason.AUTHENTICATION_FAILED);
        assertFalse(visibleText(client, ns, "orders").contains(password));
    }

    /** Names of the queues or exchanges in vhost / that start with the prefix, from the management API. */
    private static Set<String> names(String type, String prefix) {
        RabbitMqQueues broker = new RabbitMqQueues(AMQP);
        try {
            return type.equals("queues") ? broker.names(prefix) : broker.exchangeNames(prefix);
        } catch (IOException e) {
            throw new AssertionError("reading the " + type + " of " + prefix, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("reading the " + type + " of " + prefix, e);
        }
    }

    private static String queueColumn(String name, String column) {
        for (JsonNode item : management("/api/queues/%2F?columns=name," + column)) {
            if (item.path("name").asText().equals(name)) {
                return item.path(column).asText();
            }
        }
        throw new AssertionError(name + " not found");
    }

    private static boolean durable(String type, String name) {
        for (JsonNode item : management("/api/" + type + "/%2F?columns=name,durable")) {
            if (item.path("name").asText().equals(name)) {
                return item.path("durable").asBoolean();
            }
        }
        throw new AssertionError(name + " not found");
    }

    private static JsonNode management(String path) {
        String auth = Base64.getEncoder().encodeToString("guest:guest".getBytes(StandardCharsets.UTF_8));
        try {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:15672" + path))
                            .header("Authorization", "Basic " + auth)
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode(), response.body());
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new AssertionError("RabbitMQ management API at 127.0.0.1:15672", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Deletes the (retain-policy) topology, then what it left on the broker; the other order would re-declare it. */
    private static void deleteAndCleanUp(String ns, String prefix) {
        client.resources(BackstageTopology.class)
                .inNamespace(ns)
                .withName("orders")
                .delete();
        await().atMost(WAIT).untilAsserted(() -> assertNull(get(client, ns, "orders")));
        cleanUp(prefix);
    }

    /** Removes what a retain-policy test left, so the shared broker does not collect test queues. */
    private static void cleanUp(String prefix) {
        try {
            new RabbitMqQueues(AMQP).deleteQueuesAndExchanges(prefix);
        } catch (IOException e) {
            throw new AssertionError("cleaning up " + prefix, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("cleaning up " + prefix, e);
        }
    }

    /** A unique key prefix, swept from the broker when the class ends. */
    private static String prefix(String base) {
        String prefix = UniqueNames.prefix(base);
        PREFIXES.add(prefix);
        return prefix;
    }
}
