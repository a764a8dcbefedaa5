package dev.backstage.runtime.bench;

import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.redis.RedisProvider;
import dev.backstage.runtime.redis.RedisSettings;
import io.lettuce.core.Consumer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.XReadArgs.StreamOffset;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * Issue 2's benchmark (not a test): no-op jobs/s through one {@link Worker} on the local Redis versus a raw
 * lettuce loop doing the same XREADGROUP + XACK work on the same stream layout (the ceiling), alternated in
 * one run; then enqueue → handler latency p50/p99 at low load. Run: {@code bin/bench redis}.
 */
public final class RedisThroughputBenchmark {
    private static final String URL = System.getenv().getOrDefault("BACKSTAGE_REDIS_URL", "redis://127.0.0.1:6379");
    private static final String GROUP = "backstage-workers";
    private static int concurrency = 16;
    private static int prefetch = 256;

    public static void main(String[] args) throws Exception {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 50_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        concurrency = args.length > 2 ? Integer.parseInt(args[2]) : 16;
        prefetch = args.length > 3 ? Integer.parseInt(args[3]) : 256;
        RedisClient client = RedisClient.create(URL);
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            List<Double> raw = new ArrayList<>();
            List<Double> worker = new ArrayList<>();
            runRaw(c, 5_000); // warm-up, both paths
            runWorker(c, 5_000);
            for (int round = 1; round <= rounds; round++) {
                raw.add(runRaw(c, jobs));
                worker.add(runWorker(c, jobs));
                System.out.printf(Locale.ROOT, "round %d: raw %.0f jobs/s, worker %.0f jobs/s%n", round,
                        raw.get(round - 1), worker.get(round - 1));
            }
            double rawMedian = median(raw);
            double workerMedian = median(worker);
            System.out.printf(Locale.ROOT, "%nthroughput, %d no-op jobs, median of %d rounds:%n", jobs, rounds);
            System.out.printf(Locale.ROOT, "  raw lettuce XREADGROUP+XACK loop : %,10.0f jobs/s%n", rawMedian);
            System.out.printf(Locale.ROOT, "  Worker (concurrency %d, prefetch %d): %,8.0f jobs/s%n", concurrency, prefetch, workerMedian);
            System.out.printf(Locale.ROOT, "  ratio worker / raw               : %10.2f (target >= 0.80)%n",
                    workerMedian / rawMedian);
            latency(c);
        } finally {
            client.shutdown();
        }
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Double::compare);
        return sorted.get(sorted.size() / 2);
    }

    private static void preload(StatefulRedisConnection<String, String> c, String stream, int jobs) throws Exception {
        c.sync().xgroupCreate(StreamOffset.from(stream, "0"), GROUP, XGroupCreateArgs.Builder.mkstream());
        RedisAsyncCommands<String, String> async = c.async();
        List<RedisFuture<String>> futures = new ArrayList<>(jobs);
        for (int i = 0; i < jobs; i++) {
            futures.add(async.xadd(stream, "taskName", "noop", "payload", "{\"n\":" + i + "}", "enqueuedAt",
                    Long.toString(System.currentTimeMillis())));
        }
        for (RedisFuture<String> f : futures) {
            f.get(30, TimeUnit.SECONDS);
        }
    }

    /** The ceiling: one consumer, COUNT 100 reads, each batch acked with one pipelined XACK. */
    static double runRaw(StatefulRedisConnection<String, String> c, int jobs) throws Exception {
        String prefix = "bench-raw-" + System.nanoTime();
        String stream = prefix + ":default";
        preload(c, stream, jobs);
        RedisClient client = RedisClient.create(URL);
        try (StatefulRedisConnection<String, String> reader = client.connect()) {
            Consumer<String> me = Consumer.from(GROUP, "raw");
            List<RedisFuture<Long>> acks = new ArrayList<>();
            long start = System.nanoTime();
            int seen = 0;
            while (seen < jobs) {
                List<StreamMessage<String, String>> batch = reader.sync().xreadgroup(me,
                        XReadArgs.Builder.count(100).block(Duration.ofMillis(100)), StreamOffset.lastConsumed(stream));
                if (batch.isEmpty()) {
                    continue;
                }
                seen += batch.size();
                acks.add(c.async().xack(stream, GROUP, batch.stream().map(StreamMessage::getId).toArray(String[]::new)));
            }
            for (RedisFuture<Long> f : acks) {
                f.get(30, TimeUnit.SECONDS);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            return jobs / seconds;
        } finally {
            c.sync().del(stream);
            client.shutdown();
        }
    }

    static double runWorker(StatefulRedisConnection<String, String> c, int jobs) throws Exception {
        String prefix = "bench-worker-" + System.nanoTime();
        String stream = prefix + ":default";
        preload(c, stream, jobs);
        AtomicLong handled = new AtomicLong();
        Worker worker = Worker.builder().provider(RedisProvider.connect(RedisSettings.of(URL).withPrefix(prefix)))
                .queues("default").concurrency(concurrency).prefetch(prefetch).build();
        worker.register("noop", Map.class, (ctx, p) -> {
            handled.incrementAndGet();
            return Next.done();
        });
        long start = System.nanoTime();
        worker.start();
        while (handled.get() < jobs || c.sync().xpending(stream, GROUP).getCount() > 0) {
            Thread.sleep(1);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        worker.close();
        c.sync().del(stream);
        return jobs / seconds;
    }

    /** Enqueue → handler start latency, one job every 4 ms (low load). */
    static void latency(StatefulRedisConnection<String, String> c) throws Exception {
        String prefix = "bench-latency-" + System.nanoTime();
        Histogram histogram = LowLoadLatency.measure(Worker.builder().provider(RedisProvider.connect(RedisSettings.of(URL).withPrefix(prefix)))
                .queues("default").concurrency(16).build());
        int n = LowLoadLatency.JOBS;
        c.sync().del(prefix + ":default");
        System.out.printf(Locale.ROOT, "%nlatency enqueue -> handler, %d jobs at 250/s: p50 %.2f ms, p99 %.2f ms, max %.2f ms%n",
                n, histogram.getValueAtPercentile(50) / 1000.0, histogram.getValueAtPercentile(99) / 1000.0,
                histogram.getMaxValue() / 1000.0);
    }

    private RedisThroughputBenchmark() {}
}
