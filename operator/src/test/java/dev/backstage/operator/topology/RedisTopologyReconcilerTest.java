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

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BrokerObjectStatus;
import dev.backstage.operator.model.CapabilityStatus;
import dev.backstage.operator.model.Condition;
import dev.backstage.operator.model.Conditions;
import dev.backstage.operator.model.DeletionPolicy;
import dev.backstage.operator.model.ProviderType;
import dev.backstage.operator.model.ReadyReason;
import dev.backstage.operator.model.TopicSpec;
import dev.backstage.operator.pool.PoolReadiness;
import dev.backstage.operator.testing.BackstageFixtures;
import dev.backstage.operator.testing.OperatorTestHarness;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The topology reconciler against the real Redis on 127.0.0.1:6379 and the mock API server. */
@Tag("broker")
class RedisTopologyReconcilerTest {
    private static final String REDIS = "redis://127.0.0.1:6379";
    private static OperatorTestHarness harness;
    private static KubernetesClient client;
    private static RedisClient redisClient;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisCommands<String, String> redis;

    @BeforeAll
    static void start() {
        harness = OperatorTestHarness.startWithTopologies(FAST);
        client = harness.client();
        redisClient = RedisClient.create(REDIS);
        connection = redisClient.connect();
        redis = connection.sync();
    }

    @AfterAll
    static void stop() {
        harness.close();
        connection.close();
        redisClient.shutdown();
    }

    @Test
    void givenRedisTopology_whenApplied_thenExactlyItsStreamsGroupsAndDeadLetterStreamsExistAndReadyIsTrue() {
        String ns = harness.newNamespace("declare");
        String prefix = UniqueNames.prefix("bs-declare");
        secret(client, ns, "redis-url", REDIS);
        BackstageTopology topology =
                topology(ns, "orders", ProviderType.REDIS, prefix, "redis-url", "orders", "emails");
        topology.getSpec().setTopics(List.of(new TopicSpec("audit")));
        client.resource(topology).create();

        Condition ready = awaitReady(client, ns, "orders", ReadyReason.DECLARED);
        assertEquals(Conditions.TRUE, ready.getStatus());
        assertEquals(
                Set.of(
                        prefix + ":orders",
                        prefix + ":orders:dead-letter",
                        prefix + ":emails",
                        prefix + ":emails:dead-letter",
                        prefix + ":topic:audit"),
                keys(prefix));
        for (String stream : keys(prefix)) {
            assertEquals("stream", redis.type(stream), stream);
        }
        assertEquals(List.of("backstage-workers"), groups(prefix + ":orders"));
        assertEquals(List.of("backstage-workers"), groups(prefix + ":emails"));

        BackstageTopology status = get(client, ns, "orders");
        assertEquals(1L, status.getStatus().getObservedGeneration());
        Map<String, String> objects = status.getStatus().getObjects().stream()
                .collect(Collectors.toMap(o -> o.getKind() + " " + o.getName(), BrokerObjectStatus::getState));
        assertEquals(7, objects.size(), objects.toString());
        assertTrue(objects.containsKey("consumer-group " + prefix + ":orders backstage-workers"), objects.toString());
        assertTrue(
                objects.values().stream().allMatch(s -> s.equals("Created") || s.equals("Existed")),
                objects.toString());
        Map<String, CapabilityStatus> capabilities = status.getStatus().getCapabilities().stream()
                .collect(Collectors.toMap(CapabilityStatus::getCapability, c -> c));
        for (String capability : List.of("jobs", "topics", "delays", "dedupe")) {
            assertEquals("redis", capabilities.get(capability).getBackend(), capability);
            assertTrue(capabilities.get(capability).getSupplied(), capability);
        }
        await().atMost(WAIT).until(() -> eventReasons(client, ns).contains("BrokerObjectsCreated"));
        // A new topology's first Ready is said by its BrokerObjectsCreated, not by an Event of its own (which the
        // recorder would write right after it).
        await().during(Duration.ofSeconds(1))
                .atMost(WAIT)
                .until(() -> !eventReasons(client, ns).contains("TopologyReady"));
    }

    @Test
    void givenDeclaredTopology_whenStreamAndGroupAreDeletedOnTheBroker_thenTheNextPollDeclaresThemAgain() {
        String ns = harness.newNamespace("drift");
        String prefix = UniqueNames.prefix("bs-drift");
        secret(client, ns, "redis-url", REDIS);
        client.resource(topology(ns, "orders", ProviderType.REDIS, prefix, "redis-url", "orders"))
                .create();
        awaitReady(client, ns, "orders", ReadyReason.DECLARED);

        redis.del(prefix + ":orders");
        redis.del(prefix + ":orders:dead-letter");

        await("stream, group and dead-letter stream re-declared").atMost(WAIT).untilAsserted(() -> {
            assertEquals(List.of("backstage-workers"), groups(prefix + ":orders"));
            assertEquals(1L, redis.exists(prefix + ":orders:dead-letter"));
        });
        await().atMost(WAIT).until(() -> eventReasons(client, ns).contains("BrokerObjectsRedeclared"));
        awaitReady(client, ns, "orders", ReadyReason.DECLARED);
    }

    @Test
    void givenUnreachableBroker_thenReadyFalseBrokerUnreachableWithoutThePassword_andWhenTheSecretIsFixedItRecovers() {
        String ns = harness.newNamespace("unreachable");
        String prefix = UniqueNames.prefix("bs-unreachable");
        String password = "s3cret-" + UniqueNames.prefix("pw");
        secret(client, ns, "redis-url", "redis://:" + password + "@127.0.0.1:" + closedPort());
        client.resource(topology(ns, "orders", ProviderType.REDIS, prefix, "redis-url", "orders"))
                .create();

        Condition down = awaitReady(client, ns, "orders", ReadyReason.BROKER_UNREACHABLE);
        assertEquals(Conditions.FALSE, down.getStatus());
        assertTrue(down.getMessage().contains("redis"), down.getMessage());
        await().atMost(WAIT).until(() -> eventReasons(client, ns).contains(ReadyReason.BROKER_UNREACHABLE));
        assertFalse(
                visibleText(client, ns, "orders").contains(password), "the password never reaches status or Events");
        assertEquals(Set.of(), keys(prefix));

        secret(client, ns, "redis-url", REDIS);

        awaitReady(client, ns, "orders", ReadyReason.DECLARED);
        assertEquals(List.of("backstage-workers"), groups(prefix + ":orders"));
        awaitEvent(client, ns, "TopologyReady");
        assertFalse(visibleText(client, ns, "orders").contains(password));
    }

    @Test
    void givenWrongCredentials_thenReadyFalseAuthenticationFailedWithoutThePassword() {
        String ns = harness.newNamespace("auth");
        String password = "wrong-" + UniqueNames.prefix("pw");
        secret(client, ns, "redis-url", "redis://nobody:" + password + "@127.0.0.1:6379");
        client.resource(topology(
                        ns, "orders", ProviderType.REDIS, UniqueNames.prefix("bs-auth"), "redis-url", "orders"))
                .create();

        Condition failed = awaitReady(client, ns, "orders", ReadyReason.AUTHENTICATION_FAILED);
        assertEquals(Conditions.FALSE, failed.getStatus());
        awaitEvent(client, ns, ReadyReason.AUTHENTICATION_FAILED);
        assertFalse(visibleText(client, ns, "orders").contains(password));
    }

    @Test
    void givenMissingSecret_thenReadyFalseSecretNotFound_andWhenItIsCreatedTheTopologyBecomesReady() {
        String ns = harness.newNamespace("nosecret");
        String prefix = UniqueNames.prefix("bs-nosecret");
        client.resource(topology(ns, "orders", ProviderType.REDIS, prefix, "redis-url", "orders"))
                .create();

        Condition missing = awaitReady(client, ns, "orders", ReadyReason.SECRET_NOT_FOUND);
        assertTrue(missing.getMessage().contains("'redis-url'"), missing.getMessage());

        secret(client, ns, "redis-url", REDIS);
        awaitReady(client, ns, "orders", ReadyReason.DECLARED);
    }

    @Test
    void givenAKeyOfAnotherTypeWhereTheStreamShouldBe_thenReadyFalseConflictWithTheBrokersMessage() {
        String ns = harness.newNamespace("conflict");
        String prefix = UniqueNames.prefix("bs-conflict");
        redis.set(prefix + ":orders", "not a stream");
        secret(client, ns, "redis-url", REDIS);
        client.resource(topology(ns, "orders", ProviderType.REDIS, prefix, "redis-url", "orders"))
                .create();

        Condition conflict = awaitReady(client, ns, "orders", ReadyReason.CONFLICT);
        assertTrue(conflict.getMessage().contains("WRONGTYPE"), conflict.getMessage());
        assertEquals("string", redis.type(prefix + ":orders"), "the operator never overwrites a foreign key");
        redis.del(prefix + ":orders");
    }

    @Test
    void givenRetainPolicy_whenTopologyDeleted_thenItGoesAndTheStreamsStay() {
        String ns = harness.newNamespace("retain");
        String prefix = UniqueNames.prefix("bs-retain");
        secret(client, ns, "redis-url", REDIS);
        client.resource(topology(ns, "orders", ProviderType.REDIS, prefix, "redis-url", "orders"))
                .create();
        awaitReady(client, ns, "orders", ReadyReason.DECLARED);

        client.resources(BackstageTopology.class)
                .inNamespace(ns)
                .withName("orders")
                .delete();

        await().atMost(WAIT).untilAsserted(() -> assertNull(get(client, ns, "orders")));
        assertEquals(Set.of(prefix + ":orders", prefix + ":orders:dead-letter"), keys(prefix));
        await().atMost(WAIT).until(() -> eventReasons(client, ns).contains("BrokerObjectsRetained"));
        redis.del(prefix + ":orders", prefix + ":orders:dead-letter");
    }

    @Test
    void givenDeletePolicy_whenTopologyDeleted_thenItsStreamsAreDeletedFromTheBroker() {
        String ns = harness.newNamespace("delete");
        String prefix = UniqueNames.prefix("bs-delete");
        secret(client, ns, "redis-url", REDIS);
        BackstageTopology topology =
                topology(ns, "orders", ProviderType.REDIS, prefix, "redis-url", "orders", "emails");
        topology.getSpec().setDeletionPolicy(DeletionPolicy.DELETE);
        client.resource(topology).create();
        awaitReady(client, ns, "orders", ReadyReason.DECLARED);
        assertEquals(4, keys(prefix).size());

        client.resources(BackstageTopology.class)
                .inNamespace(ns)
                .withName("orders")
                .delete();

        await().atMost(WAIT).untilAsserted(() -> assertNull(get(client, ns, "orders")));
        assertEquals(Set.of(), keys(prefix));
        await().atMost(WAIT).until(() -> eventReasons(client, ns).contains("BrokerObjectsDeleted"));
    }

    @Test
    void givenDeletePolicyAndABrokerThatNeverReturns_whenDeleted_thenTheFinalizerIsReleasedAfterBoundedAttempts() {
        String ns = harness.newNamespace("abandon");
        String prefix = UniqueNames.prefix("bs-abandon");
        secret(client, ns, "redis-url", REDIS);
        BackstageTopology topology = topology(ns, "orders", ProviderType.REDIS, prefix, "redis-url", "orders");
        topology.getSpec().setDeletionPolicy(DeletionPolicy.DELETE);
        client.resource(topology).create();
        awaitReady(client, ns, "orders", ReadyReason.DECLARED);
        secret(client, ns, "redis-url", "redis://127.0.0.1:" + closedPort());

        client.resources(BackstageTopology.class)
                .inNamespace(ns)
                .withName("orders")
                .delete();

        await("finalizer released after " + FAST.cleanupAttempts() + " attempts")
                .atMost(WAIT)
                .untilAsserted(() -> assertNull(get(client, ns, "orders")));
        await().atMost(WAIT)
                .until(() -> eventReasons(client, ns).containsAll(List.of("CleanupFailed", "CleanupAbandoned")));
        assertEquals(
                Set.of(prefix + ":orders", prefix + ":orders:dead-letter"),
                keys(prefix),
                "nothing could be deleted; the Event tells the user to do it by hand");
        redis.del(prefix + ":orders", prefix + ":orders:dead-letter");
    }

    @Test
    void givenPoolOnTheTopology_thenThePoolFollowsTheTopologysReadyCondition() {
        String ns = harness.newNamespace("pool");
        String prefix = UniqueNames.prefix("bs-pool");
        secret(client, ns, "redis-url", REDIS);
        client.resource(topology(ns, "orders", ProviderType.REDIS, prefix, "redis-url", "orders"))
                .create();
        client.resource(BackstageFixtures.pool(ns, "workers", "orders", "orders"))
                .create();
        awaitPoolReason(ns, PoolReadiness.REPLICAS_READY);

        secret(client, ns, "redis-url", "redis://127.0.0.1:" + closedPort());
        awaitReady(client, ns, "orders", ReadyReason.BROKER_UNREACHABLE);
        Condition pool = awaitPoolReason(ns, PoolReadiness.TOPOLOGY_NOT_READY);
        assertTrue(pool.getMessage().contains(ReadyReason.BROKER_UNREACHABLE), pool.getMessage());

        secret(client, ns, "redis-url", REDIS);
        awaitPoolReason(ns, PoolReadiness.REPLICAS_READY);
    }

    private static Condition awaitPoolReason(String ns, String reason) {
        return await("pool Ready reason " + reason)
                .atMost(WAIT)
                .until(
                        () -> {
                            BackstageWorkerPool pool = client.resources(BackstageWorkerPool.class)
                                    .inNamespace(ns)
                                    .withName("workers")
                                    .get();
                            return pool == null || pool.getStatus() == null
                                    ? null
                                    : Conditions.find(pool.getStatus().getConditions(), Conditions.READY)
                                            .filter(c -> reason.equals(c.getReason()))
                                            .orElse(null);
                        },
                        c -> c != null);
    }

    private static Set<String> keys(String prefix) {
        return new TreeSet<>(redis.keys(prefix + ":*"));
    }

    private static List<String> groups(String stream) {
        if (redis.exists(stream) == 0) {
            return List.of();
        }
        return redis.xinfoGroups(stream).stream()
                .map(group -> {
                    @SuppressWarnings("unchecked")
                    List<Object> fields = (List<Object>) group;
                    return String.valueOf(fields.get(fields.indexOf("name") + 1));
                })
                .toList();
    }
}
