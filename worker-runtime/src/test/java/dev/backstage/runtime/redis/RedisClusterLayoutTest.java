package dev.backstage.runtime.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.spi.Backoff;
import dev.backstage.testsupport.UniqueNames;
import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import io.lettuce.core.cluster.models.partitions.Partitions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The key layout on the real 6-node cluster: with a plain prefix each queue's keys (stream, dead letters, delayed
 * jobs) share one slot and the queues spread over the shards; with a prefix in braces the keys are the seed SDKs'
 * own names, all in one slot. The slots and owners are the cluster's answers (CLUSTER KEYSLOT, CLUSTER NODES).
 */
@Tag("broker")
class RedisClusterLayoutTest {
    record Job(int n) {}

    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    private RedisTestSupport cluster(String prefix) {
        RedisTestSupport redis = new RedisTestSupport(RedisMode.CLUSTER, prefix);
        closing.add(redis);
        return redis;
    }

    /** Runs a job per queue to completion, one that always fails into the dead letters, and one delayed job. */
    private Map<String, Integer> exercise(RedisTestSupport redis, List<String> queues) {
        Worker worker = Worker.builder()
                .provider(redis.provider())
                .queues(queues.toArray(String[]::new))
                .concurrency(4)
                .maxDeliveries(1)
                .backoff(Backoff.fixed(Duration.ofMillis(20)))
                .build();
        closing.add(worker);
        Map<String, Integer> ran = new ConcurrentHashMap<>();
        worker.register("ok", Job.class, (ctx, job) -> {
            ran.merge(ctx.queue(), 1, Integer::sum);
            return Next.done();
        });
        worker.register("bad", Job.class, (ctx, job) -> {
            throw new IllegalStateException("always fails");
        });
        worker.start();
        for (String queue : queues) {
            worker.enqueue("ok", new Job(1), EnqueueOptions.onQueue(queue));
            worker.enqueue("bad", new Job(2), EnqueueOptions.onQueue(queue));
            worker.enqueue("ok", new Job(3), EnqueueOptions.onQueue(queue).delay(Duration.ofMillis(300)));
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() -> queues.stream().allMatch(q -> ran.getOrDefault(q, 0) == 2)
                        && queues.stream()
                                .allMatch(q -> redis.redis().xlen(redis.keys().deadLetter(q)) == 1));
        return ran;
    }

    @Test
    void givenAPlainPrefix_thenEachQueuesKeysShareOneSlotAndTheQueuesSpreadOverTheShards() {
        RedisTestSupport redis = cluster(UniqueNames.prefix("bstest"));
        List<String> queues = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            queues.add("q" + i);
        }
        exercise(redis, queues);
        Partitions partitions = ClusterPartitionParser.parse(redis.redis().clusterNodes());
        Set<String> owners = new HashSet<>();
        RedisKeys keys = redis.keys();
        for (String queue : queues) {
            String stream = keys.stream(queue);
            assertEquals("{" + redis.prefix() + ":" + queue + "}", stream);
            long slot = redis.redis().clusterKeyslot(stream);
            for (String key : List.of(keys.deadLetter(queue), keys.scheduled(queue), keys.error(stream, "1-0"))) {
                assertEquals(slot, redis.redis().clusterKeyslot(key), key + " is in its queue's slot");
            }
            assertEquals(1, redis.redis().exists(stream), stream + " exists on its shard");
            assertEquals(0, redis.redis().zcard(keys.scheduled(queue)), "the delayed job was promoted");
            owners.add(partitions.getPartitionBySlot((int) slot).getNodeId());
        }
        assertTrue(owners.size() >= 2, "12 queues on " + owners.size() + " shard(s): " + owners);
    }

    @Test
    void givenAPrefixInBraces_thenTheKeysAreTheSeedLayoutInOneSlot() {
        RedisTestSupport redis = cluster("{" + UniqueNames.prefix("bstest") + "}");
        exercise(redis, List.of("default", "low"));
        RedisKeys seed = new RedisKeys(redis.prefix());
        assertEquals(seed, redis.keys(), "the seed SDKs' key names, byte for byte");
        long slot = redis.redis().clusterKeyslot(seed.stream("default"));
        for (String key : List.of(
                seed.stream("low"),
                seed.deadLetter("default"),
                seed.scheduled(),
                seed.error(seed.stream("low"), "1-0"),
                seed.dedupe("k"),
                seed.broadcast())) {
            assertEquals(slot, redis.redis().clusterKeyslot(key), key + " is in the prefix's slot");
        }
        assertEquals(1, redis.redis().exists(seed.stream("default")));
        assertEquals(1, redis.redis().xlen(seed.deadLetter("low")));
    }
}
