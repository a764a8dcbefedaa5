package dev.backstage.bench;

import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.redis.RedisProvider;
import dev.backstage.runtime.redis.RedisSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Issue 23: the same work on one standalone Redis and on the 3-shard Redis Cluster of {@code bin/lib.sh} (ports
 * 7000-7005), and on that cluster with the replica wait on (WAIT 1 after every enqueue and ack). Three busy queues,
 * one producer thread per queue enqueuing as fast as the provider acknowledges, one Worker (concurrency 16) reading
 * all three; each job carries its send time. Printed per side: jobs/s from the first send to the last handler,
 * enqueue → handler p50/p99, and the machine's load before and after. One run per side: on 2 shared cores the
 * shards, the sentinels' neighbours and this JVM compete for the same CPUs, so the cluster cannot show the
 * parallelism it has on separate machines; the figures say what this machine does.
 * Run: {@code bin/bench redis-cluster [jobs]}.
 */
public final class RedisClusterBenchmark {
    static final String STANDALONE = System.getenv().getOrDefault("BACKSTAGE_REDIS_URL", "redis://127.0.0.1:6379");
    static final String CLUSTER = System.getenv()
            .getOrDefault(
                    "BACKSTAGE_REDIS_CLUSTER_URL", "redis+cluster://127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002");
    static final List<String> QUEUES = List.of("orders", "emails", "reports");

    private RedisClusterBenchmark() {}

    public static void main(String[] args) throws Exception {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 60_000;
        System.out.printf("Redis: %d jobs over 3 queues, 3 producer threads, 1 Worker (concurrency 16)%n", jobs);
        run("warm-up (standalone, not counted)", RedisSettings.of(STANDALONE), jobs / 4);
        List<String> lines = new ArrayList<>();
        lines.add(run("standalone, one node", RedisSettings.of(STANDALONE), jobs));
        lines.add(run("cluster, 3 shards", RedisSettings.of(CLUSTER), jobs));
        lines.add(run(
                "cluster, 3 shards, waitReplicas=1",
                RedisSettings.of(CLUSTER).withReplicaWait(1, Duration.ofSeconds(1)),
                jobs));
        System.out.println("--- both sides, same work ---");
        lines.forEach(System.out::println);
        System.exit(0);
    }

    static String run(String name, RedisSettings base, int jobs) throws Exception {
        String prefix = "bench23-" + System.nanoTime();
        RedisSettings settings = base.withPrefix(prefix);
        long[] latencies = new long[jobs];
        AtomicInteger handled = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(jobs);
        double loadBefore = Load.now();
        long start;
        long end;
        try (Worker worker = Worker.builder()
                .provider(RedisProvider.connect(settings))
                .queues(QUEUES.toArray(String[]::new))
                .concurrency(16)
                .prefetch(256)
                .build()) {
            worker.register("ping", Ping.class, (ctx, p) -> {
                latencies[handled.getAndIncrement()] = System.nanoTime() - p.sentNanos();
                done.countDown();
                return Next.done();
            });
            worker.start();
            start = System.nanoTime();
            List<Thread> producers = new ArrayList<>();
            for (int q = 0; q < QUEUES.size(); q++) {
                String queue = QUEUES.get(q);
                int count = jobs / QUEUES.size() + (q < jobs % QUEUES.size() ? 1 : 0);
                Thread producer = new Thread(
                        () -> {
                            for (int i = 0; i < count; i++) {
                                worker.enqueue("ping", new Ping(System.nanoTime()), EnqueueOptions.onQueue(queue));
                            }
                        },
                        "producer-" + queue);
                producer.start();
                producers.add(producer);
            }
            for (Thread producer : producers) {
                producer.join();
            }
            if (!done.await(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException(name + ": only " + handled.get() + " of " + jobs + " handled");
            }
            end = System.nanoTime();
            try (RedisProvider admin = RedisProvider.connect(settings)) {
                admin.declarer()
                        .delete(new dev.backstage.runtime.spi.TopologyRequest(
                                QUEUES.stream()
                                        .map(q -> new dev.backstage.runtime.spi.TopologyRequest.QueueSpec(
                                                q, 0, (short) 0))
                                        .toList(),
                                List.of(),
                                true,
                                settings.consumerGroup(),
                                List.of()));
            }
        }
        long[] sorted = Arrays.copyOf(latencies, jobs);
        Arrays.sort(sorted);
        double seconds = (end - start) / 1e9;
        String line = String.format(
                "%-36s %8.0f jobs/s  enqueue->handler p50 %7.2f ms  p99 %7.2f ms  (%d jobs in %.1f s,"
                        + " load %.1f -> %.1f)",
                name,
                jobs / seconds,
                sorted[jobs / 2] / 1e6,
                sorted[(int) (jobs * 0.99)] / 1e6,
                jobs,
                seconds,
                loadBefore,
                Load.now());
        System.out.println(line);
        return line;
    }
}
