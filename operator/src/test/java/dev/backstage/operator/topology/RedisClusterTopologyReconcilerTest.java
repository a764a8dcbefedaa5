package dev.backstage.operator.topology;

import static dev.backstage.operator.topology.TopologyTestSupport.FAST;
import static dev.backstage.operator.topology.TopologyTestSupport.awaitReady;
import static dev.backstage.operator.topology.TopologyTestSupport.secret;
import static dev.backstage.operator.topology.TopologyTestSupport.topology;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.Condition;
import dev.backstage.operator.model.Conditions;
import dev.backstage.operator.model.ProviderType;
import dev.backstage.operator.model.ReadyReason;
import dev.backstage.operator.model.RedisConnectionMode;
import dev.backstage.operator.model.RedisTopologySettings;
import dev.backstage.operator.testing.OperatorTestHarness;
import dev.backstage.testsupport.SharedBroker;
import dev.backstage.testsupport.UniqueNames;
import dev.backstage.testsupport.UsesSharedBrokers;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A topology in cluster mode on the 6-node Redis Cluster of {@code bin/lib.sh} (issue 23): the mode comes from
 * {@code spec.redis.mode} with a plain {@code redis://} seed node, as a managed cluster endpoint is given; the
 * reconciler declares each queue's stream, group and dead-letter stream under the queue's hash tag, asserted on the
 * cluster itself. A URL the runtime refuses for its mode (a database number in cluster mode, a Sentinel URL without
 * a master) shows as {@code Ready=False} with the runtime's own one-line fix-it.
 */
@Tag("broker")
@UsesSharedBrokers(SharedBroker.REDIS_CLUSTER)
class RedisClusterTopologyReconcilerTest {
    private static OperatorTestHarness harness;
    private static KubernetesClient client;
    private static RedisClusterClient redisClient;
    private static StatefulRedisClusterConnection<String, String> connection;
    private static RedisAdvancedClusterCommands<String, String> redis;

    @BeforeAll
    static void start() {
        harness = OperatorTestHarness.startWithTopologies(FAST);
        client = harness.client();
        redisClient = RedisClusterClient.create(List.of(
                RedisURI.create("127.0.0.1", 7000),
                RedisURI.create("127.0.0.1", 7001),
                RedisURI.create("127.0.0.1", 7002)));
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
    void givenAClusterModeTopology_whenApplied_thenEachQueuesStreamGroupAndDeadLettersAreDeclaredInTheQueuesSlot() {
        String ns = harness.newNamespace("cluster");
        String prefix = UniqueNames.prefix("bs-cluster");
        secret(client, ns, "redis-url", "redis://127.0.0.1:7000");
        BackstageTopology topology =
                topology(ns, "orders", ProviderType.REDIS, prefix, "redis-url", "orders", "emails");
        RedisTopologySettings settings = new RedisTopologySettings();
        settings.setMode(RedisConnectionMode.CLUSTER);
        topology.getSpec().setRedis(settings);
        client.resource(topology).create();

        Condition ready = awaitReady(client, ns, "orders", ReadyReason.DECLARED);
        assertEquals(Conditions.TRUE, ready.getStatus());
        try {
            for (String queue : List.of("orders", "emails")) {
                String stream = "{" + prefix + ":" + queue + "}";
                String deadLetters = stream + ":dead-letter";
                assertEquals("stream", redis.type(stream), stream);
                assertEquals("stream", redis.type(deadLetters), deadLetters);
                assertEquals(redis.clusterKeyslot(stream), redis.clusterKeyslot(deadLetters));
                List<Object> groups = redis.xinfoGroups(stream);
                assertEquals(1, groups.size(), stream + " groups " + groups);
                assertEquals("backstage-workers", groupName(groups.get(0)), stream);
            }
        } finally {
            for (String queue : List.of("orders", "emails")) {
                redis.del("{" + prefix + ":" + queue + "}");
                redis.del("{" + prefix + ":" + queue + "}:dead-letter");
            }
        }
    }

    /** A URL in the topology's Secret, the mode of its {@code spec.redis} (or null) and the runtime's fix-it. */
    private record BadUrl(String url, RedisConnectionMode mode, String fixIt) {}

    /**
     * Admission cannot check the URL: it is in a Secret, which the webhook does not read (and which may be created
     * after the topology). The runtime refuses a URL that contradicts its mode when the operator connects, and that
     * one-line fix-it reaches the topology's Ready condition, its password scrubbed.
     */
    @Test
    void givenUrlsTheRuntimeRefusesInTheSecret_whenApplied_thenReadyIsFalseWithTheRuntimesFixItAndNoPassword() {
        String ns = harness.newNamespace("badurl");
        List<BadUrl> cases = List.of(
                new BadUrl(
                        "redis://app:s3cret-pw@127.0.0.1:7000/3",
                        RedisConnectionMode.CLUSTER,
                        "Redis Cluster has only database 0: drop /3 from the URL"),
                new BadUrl(
                        "redis+cluster://app:s3cret-pw@127.0.0.1:7000/2",
                        null,
                        "Redis Cluster has only database 0: drop /2 from the URL"),
                new BadUrl(
                        "redis-sentinel://app:s3cret-pw@127.0.0.1:26379",
                        null,
                        "a Sentinel URL names the master after '#': redis-sentinel://host:26379#mymaster"));
        for (int i = 0; i < cases.size(); i++) {
            BadUrl bad = cases.get(i);
            String name = "bad-" + i;
            secret(client, ns, name, bad.url());
            BackstageTopology topology =
                    topology(ns, name, ProviderType.REDIS, UniqueNames.prefix("bs-bad"), name, "orders");
            if (bad.mode() != null) {
                RedisTopologySettings settings = new RedisTopologySettings();
                settings.setMode(bad.mode());
                topology.getSpec().setRedis(settings);
            }
            client.resource(topology).create();
            Condition ready = awaitReady(client, ns, name, ReadyReason.INVALID_SPEC);
            assertEquals(Conditions.FALSE, ready.getStatus());
            assertTrue(ready.getMessage().contains(bad.fixIt()), ready.getMessage());
            assertFalse(ready.getMessage().contains("s3cret-pw"), ready.getMessage());
        }
    }

    @SuppressWarnings("unchecked")
    private static String groupName(Object group) {
        if (group instanceof Map<?, ?> map) {
            return String.valueOf(map.get("name"));
        }
        List<Object> fields = (List<Object>) group;
        for (int i = 0; i + 1 < fields.size(); i += 2) {
            if ("name".equals(String.valueOf(fields.get(i)))) {
                return String.valueOf(fields.get(i + 1));
            }
        }
        return null;
    }
}
