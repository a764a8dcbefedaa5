package dev.backstage.operator.autoscaler;

import static dev.backstage.operator.autoscaler.ClusterPools.WAIT;
import static dev.backstage.operator.autoscaler.ClusterPools.autoscaledPool;
import static dev.backstage.operator.autoscaler.ClusterPools.awaitStatus;
import static dev.backstage.operator.autoscaler.ClusterPools.awaitTopologyReady;
import static dev.backstage.operator.autoscaler.ClusterPools.backlogAvailable;
import static dev.backstage.operator.autoscaler.ClusterPools.deadLettersPerQueue;
import static dev.backstage.operator.autoscaler.ClusterPools.deploymentReplicas;
import static dev.backstage.operator.autoscaler.ClusterPools.outstandingPerQueue;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.operator.model.RedisConnectionMode;
import dev.backstage.operator.model.RedisTopologySettings;
import dev.backstage.operator.testing.BackstageFixtures;
import dev.backstage.operator.testing.OperatorTestHarness;
import dev.backstage.operator.topology.TopologySettings;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.OutgoingJob;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import dev.backstage.testsupport.SharedBroker;
import dev.backstage.testsupport.UniqueNames;
import dev.backstage.testsupport.UsesSharedBrokers;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lettuce.core.Consumer;
import io.lettuce.core.RedisURI;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.XReadArgs.StreamOffset;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The operator on the 6-node Redis Cluster of {@code bin/lib.sh} (127.0.0.1:7000-7005): a {@code redis+cluster://}
 * topology with three queues chosen so that each lives on a different primary is declared by the real topology
 * reconciler (asserted on each owning primary), and a pool on all three autoscales on the backlog summed over the
 * shards, reports each queue's backlog and dead letters, and scales back to zero once everything is acknowledged.
 */
@Tag("broker")
@UsesSharedBrokers(SharedBroker.REDIS_CLUSTER)
class RedisClusterPoolTest {
    private static final String SEEDS = "redis+cluster://127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002";
    private static final String GROUP = ProviderSettings.DEFAULT_GROUP;

    private static OperatorTestHarness harness;
    private static KubernetesClient client;
    private static RedisClusterClient redisClient;
    private static StatefulRedisClusterConnection<String, String> connection;
    private static RedisAdvancedClusterCommands<String, String> redis;
    private static final List<String> KEYS = new ArrayList<>();

    @BeforeAll
    static void start() {
        harness = OperatorTestHarness.startWithTopologies(
                new TopologySettings(Duration.ofSeconds(2), 2, Duration.ofMillis(300)));
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
        KEYS.forEach(redis::del);
        connection.close();
        redisClient.shutdown();
    }

    @Test
    void givenQueuesOnThreeShards_whenJobsAndDeadLettersArrive_thenThePoolScalesOnTheSummedBacklogAndBackToZero() {
        String ns = harness.newNamespace("rcluster");
        String prefix = UniqueNames.prefix("bs-rcpool");
        Map<String, String> owners = queuesOnDistinctPrimaries(prefix, 3);
        List<String> queues = List.copyOf(owners.keySet());
        queues.forEach(q -> KEYS.addAll(List.of(stream(prefix, q), stream(prefix, q) + ":dead-letter")));
        ClusterPools.secret(client, ns, "redis-cluster", SEEDS);
        BackstageTopology topology = BackstageFixtures.redisTopology(ns, "shop", queues.toArray(String[]::new));
        topology.getSpec().getConnection().setSecretName("redis-cluster");
        topology.getSpec().setKeyPrefix(prefix);
        RedisTopologySettings cluster = new RedisTopologySettings();
        cluster.setMode(RedisConnectionMode.CLUSTER);
        topology.getSpec().setRedis(cluster);
        client.resource(topology).create();

        awaitTopologyReady(client, ns, "shop");
        for (String queue : queues) {
            var owner = connection.getConnection(owners.get(queue)).sync();
            assertEquals("stream", owner.type(stream(prefix, queue)), queue + " on primary " + owners.get(queue));
            assertEquals("stream", owner.type(stream(prefix, queue) + ":dead-letter"), queue + " dead letters");
            assertEquals(1, owner.xinfoGroups(stream(prefix, queue)).size(), queue + "'s consumer group");
        }

        client.resource(autoscaledPool(ns, "workers", "shop", 0, 10, 2, queues.toArray(String[]::new)))
                .create();
        awaitStatus(
                client,
                ns,
                "workers",
                s -> backlogAvailable(s) && s.getBacklog().getOutstanding() == 0);
        try (Provider provider =
                Providers.create(ProviderSettings.of("redis", SEEDS).withPrefix(prefix))) {
            enqueue(provider, queues.get(0), 4);
            enqueue(provider, queues.get(1), 2);
            enqueue(provider, queues.get(2), 2);
        }
        redis.xadd(stream(prefix, queues.get(1)) + ":dead-letter", "taskName", "work", "error", "boom");
        for (int i = 0; i < 2; i++) {
            redis.xadd(stream(prefix, queues.get(2)) + ":dead-letter", "taskName", "work", "error", "boom");
        }

        System.out.println("8 jobs over 3 shards, 2 per replica: waiting for 4 replicas and 3 dead letters in status");
        BackstageWorkerPoolStatus up = awaitStatus(
                client,
                ns,
                "workers",
                s -> backlogAvailable(s)
                        && s.getBacklog().getOutstanding() == 8
                        && s.getDeadLetters() != null
                        && s.getDeadLetters().getTotal() == 3
                        && Integer.valueOf(4).equals(s.getDesiredReplicas()));
        assertEquals(Map.of(queues.get(0), 4L, queues.get(1), 2L, queues.get(2), 2L), outstandingPerQueue(up));
        assertEquals(Map.of(queues.get(0), 0L, queues.get(1), 1L, queues.get(2), 2L), deadLettersPerQueue(up));
        assertTrue(
                up.getLastScaleReason().contains("8 outstanding (8 undelivered + 0 in flight)"),
                up.getLastScaleReason());
        await().atMost(WAIT).untilAsserted(() -> assertEquals(4, deploymentReplicas(client, ns, "workers")));

        List<List<StreamMessage<String, String>>> read = new ArrayList<>();
        for (String queue : queues) {
            read.add(redis.xreadgroup(
                    Consumer.from(GROUP, "test-consumer"),
                    XReadArgs.Builder.count(10),
                    StreamOffset.lastConsumed(stream(prefix, queue))));
        }
        assertEquals(8, read.stream().mapToInt(List::size).sum());
        awaitStatus(
                client,
                ns,
                "workers",
                s -> s.getBacklog().getInFlight() == 8 && s.getBacklog().getUndelivered() == 0);
        for (int i = 0; i < queues.size(); i++) {
            String key = stream(prefix, queues.get(i));
            read.get(i).forEach(m -> redis.xack(key, GROUP, m.getId()));
        }
        System.out.println("all 8 acknowledged on their shards: waiting for zero");
        await().atMost(WAIT).untilAsserted(() -> assertEquals(0, deploymentReplicas(client, ns, "workers")));
        BackstageWorkerPoolStatus zero = client.resources(BackstageWorkerPool.class)
                .inNamespace(ns)
                .withName("workers")
                .get()
                .getStatus();
        assertEquals(0L, zero.getBacklog().getOutstanding());
        assertEquals(3L, zero.getDeadLetters().getTotal(), "dead letters stay until redriven");
    }

    private static void enqueue(Provider provider, String queue, int count) {
        for (int i = 0; i < count; i++) {
            provider.jobs().publish(OutgoingJob.fresh(queue, "work", "{\"n\":" + i + "}", JobMeta.NONE));
        }
    }

    private static String stream(String prefix, String queue) {
        return "{" + prefix + ":" + queue + "}";
    }

    /** {@code count} queue names whose hash tags are served by {@code count} different primaries, with their owners. */
    private static Map<String, String> queuesOnDistinctPrimaries(String prefix, int count) {
        Map<String, String> chosen = new LinkedHashMap<>();
        Set<String> primaries = new HashSet<>();
        for (int i = 0; chosen.size() < count; i++) {
            String queue = "q" + i;
            String owner = connection
                    .getPartitions()
                    .getPartitionBySlot(SlotHash.getSlot(stream(prefix, queue)))
                    .getNodeId();
            if (primaries.add(owner)) {
                chosen.put(queue, owner);
            }
            if (i > 1000) {
                throw new AssertionError("the cluster has fewer than " + count + " primaries: " + primaries);
            }
        }
        return chosen;
    }
}
