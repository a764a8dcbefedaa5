package dev.backstage.runtime.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.testsupport.SharedBroker;
import dev.backstage.testsupport.UsesSharedBrokers;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 23: a primary dies ({@code kill -9}) in the middle of 5,000 jobs. In every run every job in the broker's
 * streams afterwards runs at least once, the delayed jobs due during the failover fire and nothing stays pending.
 * With the replica wait on (WAIT 1) every acknowledged enqueue is among them: 0 lost. Without it the acknowledged
 * enqueues missing from the streams are counted and printed (Redis replicates asynchronously; on loopback the window
 * is small). Duplicates and the time from the kill to the first job enqueued after it completing are printed, not
 * asserted. In the cluster the killed primary is the one owning the busiest queue's slot;
 * once the cluster has promoted its replica the killed node is started again (it rejoins as that shard's replica:
 * until then WAIT 1 cannot be met on that shard and its enqueues are retried).
 */
@Tag("broker")
@Tag("slow")
@ParameterizedClass(name = "{0}, waitReplicas={1}")
@MethodSource("runs")
@UsesSharedBrokers(
        value = {SharedBroker.REDIS_CLUSTER, SharedBroker.REDIS_SENTINEL},
        disrupts = true)
class RedisFailoverTest {
    private static final int JOBS = 5_000;
    private static final int DELAYED = 50;
    private static final ObjectMapper JSON = new ObjectMapper();

    record Job(int n) {}

    private final RedisMode mode;
    private final int waitReplicas;
    private final RedisTestSupport redis;
    private Worker worker;

    RedisFailoverTest(RedisMode mode, int waitReplicas) {
        this.mode = mode;
        this.waitReplicas = waitReplicas;
        this.redis = new RedisTestSupport(mode);
    }

    static Stream<Arguments> runs() {
        return Stream.of(
                Arguments.of(RedisMode.CLUSTER, 1),
                Arguments.of(RedisMode.SENTINEL, 1),
                Arguments.of(RedisMode.CLUSTER, 0),
                Arguments.of(RedisMode.SENTINEL, 0));
    }

    @BeforeEach
    void everyNodeUp() {
        RedisNodes.ensure(mode == RedisMode.CLUSTER ? "redis_cluster" : "redis_sentinel");
    }

    @AfterEach
    void tearDown() {
        if (worker != null) {
            worker.close();
        }
        RedisNodes.ensure(mode == RedisMode.CLUSTER ? "redis_cluster" : "redis_sentinel"); // the killed node back
        redis.close();
    }

    private static String queueOf(int n) {
        return n % 5 < 3 ? "busy" : n % 5 == 3 ? "calm1" : "calm2";
    }

    @Test
    void
            givenARedisCluster_whenThePrimaryOfTheBusiestQueueIsKilled_thenEveryJobItKeptRuns_andWithReplicaWaitNoneIsLost()
                    throws Exception {
        RedisSettings settings = redis.settings()
                .withReplicaWait(waitReplicas, Duration.ofSeconds(2))
                .withIdleTimeout(Duration.ofSeconds(5));
        Map<Integer, Integer> runs = new ConcurrentHashMap<>();
        Map<Integer, Long> doneAt = new ConcurrentHashMap<>();
        Map<Integer, Long> ackedAt = new ConcurrentHashMap<>();
        worker = Worker.builder()
                .provider(RedisProvider.connect(settings))
                .queues("busy", "calm1", "calm2")
                .concurrency(16)
                .shutdownGrace(Duration.ofSeconds(2))
                .build();
        worker.register("job", Job.class, (ctx, job) -> {
            runs.merge(job.n(), 1, Integer::sum);
            doneAt.putIfAbsent(job.n(), System.nanoTime());
            return Next.done();
        });
        worker.start();

        AtomicInteger retries = new AtomicInteger();
        AtomicReference<Throwable> producerFailed = new AtomicReference<>();
        Thread producer = new Thread(
                () -> {
                    for (int n = 0; n < JOBS; n++) {
                        enqueue(n, EnqueueOptions.onQueue(queueOf(n)), ackedAt, retries, producerFailed);
                    }
                },
                "failover-producer");
        producer.start();

        await().atMost(Duration.ofSeconds(120)).until(() -> runs.size() >= 1_500 || producerFailed.get() != null);
        String busy = redis.keys().stream("busy");
        int victim = mode == RedisMode.CLUSTER
                ? RedisNodes.clusterPrimaryOf(busy, 7000)
                : RedisNodes.sentinelPrimary(26379, "backstage");
        for (int i = 0; i < DELAYED; i++) { // due while the failover runs: 0.5 to 5.4 s after the kill
            enqueue(
                    JOBS + i,
                    EnqueueOptions.onQueue("busy").delay(Duration.ofMillis(500 + 100L * i)),
                    ackedAt,
                    retries,
                    producerFailed);
        }
        RedisNodes.kill9(victim);
        long killedAt = System.nanoTime();
        int promoted;
        if (mode == RedisMode.CLUSTER) {
            int ask = RedisNodes.clusterPorts().stream()
                    .filter(p -> p != victim)
                    .findFirst()
                    .orElseThrow();
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> RedisNodes.clusterPrimaryOf(busy, ask) != victim);
            promoted = RedisNodes.clusterPrimaryOf(busy, ask);
        } else {
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> RedisNodes.sentinelPrimary(26379, "backstage") != victim);
            promoted = RedisNodes.sentinelPrimary(26379, "backstage");
        }
        long failedOverMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
        if (mode == RedisMode.CLUSTER && waitReplicas > 0) {
            RedisNodes.ensure("redis_cluster"); // the killed node rejoins as the new primary's replica
        }

        producer.join(TimeUnit.MINUTES.toMillis(3));
        assertEquals(null, producerFailed.get(), "the producer gave up");
        // The broker's own state: every entry delivered (lag 0) and acknowledged (nothing pending), no delayed job
        // left in the sorted set.
        List<String> streams = List.of("busy", "calm1", "calm2").stream()
                .map(q -> redis.keys().stream(q))
                .toList();
        await().atMost(Duration.ofSeconds(180))
                .pollInterval(Duration.ofMillis(250))
                .ignoreExceptions()
                .until(() -> streams.stream()
                                .allMatch(stream -> redis.redis()
                                                        .xpending(stream, "backstage-workers")
                                                        .getCount()
                                                == 0
                                        && StreamInfo.asLong(StreamInfo.groups(
                                                                redis.redis().xinfoGroups(stream))
                                                        .get(0)
                                                        .get("lag"))
                                                == 0)
                        && redis.redis().zcard(redis.keys().scheduled("busy")) == 0);

        Set<Integer> inStreams = new HashSet<>();
        for (String queue : List.of("busy", "calm1", "calm2")) {
            for (StreamMessage<String, String> m :
                    redis.redis().xrange(redis.keys().stream(queue), Range.create("-", "+"))) {
                inStreams.add(JSON.readTree(m.getBody().get("payload")).get("n").asInt());
            }
        }
        Set<Integer> notRun = new TreeSet<>(inStreams);
        notRun.removeAll(runs.keySet());
        assertEquals(Set.of(), notRun, "jobs in the streams that never ran");
        assertEquals(JOBS + DELAYED, ackedAt.size());
        Set<Integer> missing = new TreeSet<>(ackedAt.keySet());
        missing.removeAll(inStreams);
        if (waitReplicas > 0) {
            assertEquals(Set.of(), missing, "acknowledged enqueues missing from the streams after the failover");
            for (int i = 0; i < DELAYED; i++) {
                assertTrue(runs.containsKey(JOBS + i), "delayed job " + (JOBS + i) + " fired");
            }
        }

        int duplicates = runs.values().stream().mapToInt(c -> c - 1).sum();
        long firstAfter = ackedAt.entrySet().stream()
                .filter(e -> e.getValue() > killedAt
                        && queueOf(e.getKey()).equals("busy")
                        && e.getKey() < JOBS
                        && doneAt.containsKey(e.getKey()))
                .mapToLong(e -> doneAt.get(e.getKey()))
                .min()
                .orElse(-1);
        System.out.printf(
                "failover (%s, waitReplicas=%d): %d jobs + %d delayed, killed primary :%d, new primary :%d "
                        + "after %d ms; lost %d; duplicates %d; enqueue retries %d; first job enqueued after the kill done "
                        + "%d ms after the kill; load %.1f%n",
                mode.label(),
                waitReplicas,
                JOBS,
                DELAYED,
                victim,
                promoted,
                failedOverMs,
                missing.size(),
                duplicates,
                retries.get(),
                firstAfter < 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(firstAfter - killedAt),
                load());
    }

    private static double load() {
        try {
            return Double.parseDouble(java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg"))
                    .split(" ")[0]);
        } catch (java.io.IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /** Enqueues until the provider reports it done (on the primary and one replica), retrying what fails. */
    private void enqueue(
            int n,
            EnqueueOptions options,
            Map<Integer, Long> ackedAt,
            AtomicInteger retries,
            AtomicReference<Throwable> failed) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (true) {
            try {
                worker.enqueue("job", new Job(n), options);
                ackedAt.put(n, System.nanoTime());
                return;
            } catch (RuntimeException e) {
                retries.incrementAndGet();
                if (System.nanoTime() - deadline > 0) {
                    failed.set(e);
                    throw e;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // back-off before the retry
            }
        }
    }
}
