package dev.backstage.operator.topology;

import static dev.backstage.operator.topology.TopologyTestSupport.FAST;
import static dev.backstage.operator.topology.TopologyTestSupport.WAIT;
import static dev.backstage.operator.topology.TopologyTestSupport.awaitReady;
import static dev.backstage.operator.topology.TopologyTestSupport.get;
import static dev.backstage.operator.topology.TopologyTestSupport.secret;
import static dev.backstage.operator.topology.TopologyTestSupport.topology;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.main.BackstageOperator;
import dev.backstage.operator.main.LeaseSettings;
import dev.backstage.operator.main.OperatorSettings;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.DeletionPolicy;
import dev.backstage.operator.model.ProviderType;
import dev.backstage.operator.model.ReadyReason;
import dev.backstage.operator.testing.RealApiServer;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Deleting topologies on the real API server, with the operator running and after it is gone (as after
 * {@code helm uninstall}): a retained topology carries no finalizer, so nothing waits for an operator.
 */
@Tag("cluster")
class TopologyDeletionOnApiServerTest {
    private static final String REDIS = "redis://127.0.0.1:6379";
    private RealApiServer api;
    private KubernetesClient client;
    private String ns;
    private String prefix;
    private BackstageOperator operator;

    @BeforeEach
    void setUp() {
        api = RealApiServer.shared();
        client = api.client();
        ns = api.namespace("deletion");
        prefix = UniqueNames.prefix("bs-deletion");
        secret(client, ns, "redis-url", REDIS);
    }

    @AfterEach
    void tearDown() {
        if (operator != null) {
            operator.stop();
        }
        for (BackstageTopology left :
                client.resources(BackstageTopology.class).inNamespace(ns).list().getItems()) {
            left.getMetadata().setFinalizers(List.of());
            client.resource(left).update();
        }
        api.deleteNamespace(ns);
        RedisClient redis = RedisClient.create(REDIS);
        try (StatefulRedisConnection<String, String> connection = redis.connect()) {
            List<String> keys = connection.sync().keys(prefix + "*:*");
            if (!keys.isEmpty()) {
                connection.sync().del(keys.toArray(String[]::new));
            }
        } finally {
            redis.shutdown();
        }
    }

    private void startOperator() {
        OperatorSettings settings = new OperatorSettings(
                Set.of(ns), false, LeaseSettings.defaults(null), "deletion-test-operator", 0, false);
        operator = BackstageOperator.create(
                client, settings, Metrics.NOOP, Clock.systemUTC(), Optional.of(FAST), overrides -> {});
        operator.start();
    }

    @Test
    void givenARetainedTopology_whenDeletedAfterTheOperatorIsGone_thenItDoesNotHangAndLeavesItsBrokerObjects() {
        // One as an older operator left it (with the finalizer), one new, one that deletes its broker objects.
        BackstageTopology legacy =
                topology(ns, "legacy", ProviderType.REDIS, prefix + "-legacy", "redis-url", "orders");
        legacy.getMetadata().setFinalizers(List.of(TopologyReconciler.FINALIZER));
        client.resource(legacy).create();
        client.resource(topology(ns, "kept", ProviderType.REDIS, prefix + "-kept", "redis-url", "orders"))
                .create();
        BackstageTopology deleting =
                topology(ns, "deleting", ProviderType.REDIS, prefix + "-deleting", "redis-url", "orders");
        deleting.getSpec().setDeletionPolicy(DeletionPolicy.DELETE);
        client.resource(deleting).create();
        startOperator();
        for (String name : List.of("legacy", "kept", "deleting")) {
            awaitReady(client, ns, name, ReadyReason.DECLARED);
        }
        await("the older version's finalizer is removed from the retained topology")
                .atMost(WAIT)
                .until(() ->
                        get(client, ns, "legacy").getMetadata().getFinalizers().isEmpty());
        assertEquals(List.of(), get(client, ns, "kept").getMetadata().getFinalizers());
        assertEquals(
                List.of(TopologyReconciler.FINALIZER),
                get(client, ns, "deleting").getMetadata().getFinalizers());

        operator.stop(); // helm uninstall: no operator any more
        operator = null;
        for (String name : List.of("legacy", "kept")) {
            client.resources(BackstageTopology.class)
                    .inNamespace(ns)
                    .withName(name)
                    .delete();
        }
        await("retained topologies are gone without an operator")
                .atMost(WAIT)
                .until(() -> get(client, ns, "legacy") == null && get(client, ns, "kept") == null);
        RedisClient redis = RedisClient.create(REDIS);
        try (StatefulRedisConnection<String, String> connection = redis.connect()) {
            assertTrue(connection.sync().exists(prefix + "-kept:orders") == 1L, "retain leaves the stream on Redis");
        } finally {
            redis.shutdown();
        }
        // A delete-policy topology waits for an operator to delete its broker objects: that is its promise.
        client.resources(BackstageTopology.class)
                .inNamespace(ns)
                .withName("deleting")
                .delete();
        assertFalse(get(client, ns, "deleting") == null, "held by its finalizer until an operator deletes its objects");
        startOperator();
        await("an operator deletes its broker objects and releases it")
                .atMost(WAIT)
                .until(() -> get(client, ns, "deleting") == null);
    }
}
