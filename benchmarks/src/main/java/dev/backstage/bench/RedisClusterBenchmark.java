package dev.backstage.bench;

import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.redis.RedisProvider;
import dev.backstage.runtime.redis.RedisSettings;
import dev.backstage.runtime.spi.TopologyRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What sharding and the replica wait cost on this machine: the same work on one standalone Redis, on the 3-shard
 * Redis Cluster of {@code bin/lib.sh} (ports 7000-7005), and on that cluster with {@code waitReplicas=1} (WAIT 1
 * after every enqueue and acknowledgement).
 *
 * <p>Throughput: each round preloads {@code jobs} jobs spread over three busy queues through the side's own provider
 * (outside the timed window, so the cluster sides pay their enqueue waits there), then times one Worker
 * (concurrency 16, prefetch 256) reading all three queues to the last job. The sides rotate every round after the
 * warm-up rounds, and the medians are printed with their spread and the ratios of standalone to each cluster side;
 * the preload's own rate (three producer threads, each enqueue acknowledged, with the wait on that side) is printed
 * after them.
 * Latency: enqueue → handler p50/p99 at a fixed rate, all three sides at once, sending in turns of one second, each
 * enqueue paying its side's wait. On 2 shared cores the six cluster nodes, the client and the worker compete for the
 * same CPUs, so the cluster cannot show the parallelism it has on separate machines; the figures say what this
 * machine does.
 *
 * <p>Run: {@code bin/bench redis-cluster [jobs] [rounds] [warmups]}.
 */
public final class RedisClusterBenchmark {
    static final String STANDALONE = System.getenv().getOrDefault("BACKSTAGE_REDIS_URL", "redis://127.0.0.1:6379");
    static final String CLUSTER = System.getenv()
            .getOrDefault(
                    "BACKSTAGE_REDIS_CLUSTER_URL", "redis+cluster://127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002");
    static final List<String> QUEUES = List.of("orders", "emails", "reports");
    /** Each side's enqueue rate in every run (warm-up rounds included), printed after the rounds. */
    static final Map<String, List<Double>> ENQUEUE_RATES = new LinkedHashMap<>();

    private RedisClusterBenchmark() {}

    public static void main(String[] args) throws Exception {
        int jobs = RedisBenchmark.arg(args, 0, 100_000);
        int rounds = RedisBenchmark.arg(args, 1, 3);
        int warmups = RedisBenchmark.arg(args, 2, 1);
        RedisSettings standalone = RedisSettings.of(STANDALONE);
        RedisSettings cluster = RedisSettings.of(CLUSTER);
        RedisSettings waiting = cluster.withReplicaWait(1, Duration.ofSeconds(1));
        List<Side> sides = List.of(
                RedisBenchmark.side("standalone, one node", j -> drain("standalone, one node", standalone, j)),
                RedisBenchmark.side("cluster, 3 shards", j -> drain("cluster, 3 shards", cluster, j)),
                RedisBenchmark.side(
                        "cluster, 3 shards, waitReplicas=1",
                        j -> drain("cluster, 3 shards, waitReplicas=1", waiting, j)));
        Rounds.run(
                "Redis one node vs 3-shard cluster: 3 queues, 1 Worker (concurrency 16, prefetch 256)",
                sides,
                jobs,
                warmups,
                rounds);
        System.out.printf("%nENQUEUE (the preload: 3 producer threads, each waiting for the provider's"
                + " acknowledgement), median of every run [min-max]:%n");
        ENQUEUE_RATES.forEach((side, rates) -> System.out.printf(
                Locale.ROOT,
                "  %-46s %,10.0f jobs/s [%,.0f-%,.0f]%n",
                side,
                Rounds.median(rates),
                rates.stream().mapToDouble(d -> d).min().orElse(Double.NaN),
                rates.stream().mapToDouble(d -> d).max().orElse(Double.NaN)));
        List<RedisSettings> latencySettings =
                List.of(standalone.withPrefix(prefix()), cluster.withPrefix(prefix()), waiting.withPrefix(prefix()));
        Latency.measure(
                "Redis one node vs 3-shard cluster",
                List.of(
                        Latency.worker("standalone, one node", worker(latencySettings.get(0), "default")),
                        Latency.worker("cluster, 3 shards", worker(latencySettings.get(1), "default")),
                        Latency.worker("cluster, 3 shards, waitReplicas=1", worker(latencySettings.get(2), "default"))),
                Integer.getInteger("bench.latencyJobs", 10_000),
                500);
        for (RedisSettings s : latencySettings) {
            delete(s, List.of("default"));
        }
        System.exit(0);
    }

    private static String prefix() {
        return "bench23-" + System.nanoTime();
    }

    static Worker worker(RedisSettings settings, String... queues) {
        return Worker.builder()
                .provider(RedisProvider.connect(settings))
                .queues(queues)
                .concurrency(16)
                .prefetch(256)
                .build();
    }

    /** Preloads {@code jobs} jobs over the three queues with the side's settings, then times one Worker draining them. */
    static TimedWindow.Measured drain(String side, RedisSettings base, int jobs) throws Exception {
        RedisSettings settings = base.withPrefix(prefix());
        TimedWindow window = new TimedWindow(jobs);
        try (Worker worker = worker(settings, QUEUES.toArray(String[]::new))) {
            worker.register("noop", Job.class, (ctx, job) -> {
                window.handled();
                return Next.done();
            });
            long start = System.nanoTime();
            preload(worker, jobs);
            ENQUEUE_RATES.computeIfAbsent(side, k -> new ArrayList<>()).add(jobs / ((System.nanoTime() - start) / 1e9));
            worker.start();
            return window.await(settings.prefix());
        } finally {
            delete(settings, QUEUES);
        }
    }

    /** One producer thread per queue, each enqueuing its share as fast as the provider acknowledges. */
    private static void preload(Worker worker, int jobs) throws InterruptedException {
        List<Thread> producers = new ArrayList<>();
        for (int q = 0; q < QUEUES.size(); q++) {
            String queue = QUEUES.get(q);
            int count = jobs / QUEUES.size() + (q < jobs % QUEUES.size() ? 1 : 0);
            Thread producer = new Thread(
                    () -> {
                        for (int i = 0; i < count; i++) {
                            worker.enqueue("noop", new Job(i), EnqueueOptions.onQueue(queue));
                        }
                    },
                    "producer-" + queue);
            producer.start();
            producers.add(producer);
        }
        for (Thread producer : producers) {
            producer.join();
        }
    }

    private static void delete(RedisSettings settings, List<String> queues) throws Exception {
        try (RedisProvider admin = RedisProvider.connect(settings)) {
            admin.declarer()
                    .delete(new TopologyRequest(
                            queues.stream()
                                    .map(q -> new TopologyRequest.QueueSpec(q, 0, (short) 0))
                                    .toList(),
                            List.of(),
                            true,
                            settings.consumerGroup(),
                            List.of()));
        }
    }
}
