package dev.backstage.bench;

import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.kafka.KafkaProvider;
import dev.backstage.runtime.kafka.KafkaSettings;
import dev.backstage.runtime.redis.RedisDelays;
import dev.backstage.runtime.redis.RedisSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * What replication costs: the same work through the Worker on a 1-broker cluster (replication factor 1) and on a
 * 3-broker cluster (replication factor 3, {@code min.insync.replicas} 2), both clusters of node JVMs on this machine
 * ({@code bin/bench kafka-replication} starts them and passes {@code -Dbench.kafka.bootstrap} and
 * {@code -Dbench.kafka.cluster}). Per round and shape: {@code jobs} jobs enqueued by {@code producers} threads (each
 * enqueue waits for acks=all) and run by one Worker; prints jobs/s from the first enqueue to the last job done, the
 * enqueue call's p50/p99 (until acked) and enqueue → handler p50/p99, with the machine's load before and after.
 * Run: {@code bin/bench kafka-replication [jobs] [rounds] [producers] [concurrency] [partitions]}.
 */
public final class KafkaReplicationBenchmark {
    record Job(long sentNanos) {}

    record Shape(String name, String bootstrap, int replicationFactor, int minInsyncReplicas) {}

    record Result(double jobsPerSecond, Histogram enqueue, Histogram endToEnd) {}

    private KafkaReplicationBenchmark() {}

    public static void main(String[] args) throws Exception {
        int jobs = RedisBenchmark.arg(args, 0, 20_000);
        int rounds = RedisBenchmark.arg(args, 1, 3);
        int producers = RedisBenchmark.arg(args, 2, 16);
        int concurrency = RedisBenchmark.arg(args, 3, 8);
        int partitions = RedisBenchmark.arg(args, 4, 6);
        String single = System.getProperty("bench.kafka.bootstrap");
        String cluster = System.getProperty("bench.kafka.cluster");
        if (single == null || cluster == null) {
            throw new IllegalArgumentException(
                    "set -Dbench.kafka.bootstrap (1 broker) and -Dbench.kafka.cluster (3 brokers);"
                            + " bin/bench kafka-replication starts both");
        }
        List<Shape> shapes = List.of(
                new Shape("1 broker, RF 1", single, 1, 1), new Shape("3 brokers, RF 3, min ISR 2", cluster, 3, 2));
        System.out.printf(
                Locale.ROOT,
                "Kafka replication: %,d jobs per round, %d producer threads, concurrency %d,"
                        + " %d partitions, %d rounds per shape (alternating)%n",
                jobs,
                producers,
                concurrency,
                partitions,
                rounds);
        List<List<Result>> results = new ArrayList<>(List.of(new ArrayList<>(), new ArrayList<>()));
        for (int round = 0; round <= rounds; round++) { // round 0 warms both shapes up and is not counted
            for (int s = 0; s < shapes.size(); s++) {
                Shape shape = shapes.get(s);
                String load = loadAverage();
                Result r = round(shape, round == 0 ? Math.min(jobs, 5_000) : jobs, producers, concurrency, partitions);
                System.out.printf(
                        Locale.ROOT,
                        "  %s %-28s %,8.0f jobs/s; enqueue (until acked) p50 %6.2f ms p99 %6.2f ms;"
                                + " enqueue -> handler p50 %6.2f ms p99 %6.2f ms; load %s -> %s%n",
                        round == 0 ? "warm-up " : "round " + round + " ",
                        shape.name(),
                        r.jobsPerSecond(),
                        ms(r.enqueue(), 50),
                        ms(r.enqueue(), 99),
                        ms(r.endToEnd(), 50),
                        ms(r.endToEnd(), 99),
                        load,
                        loadAverage());
                if (round > 0) {
                    results.get(s).add(r);
                }
            }
        }
        System.out.println("medians:");
        for (int s = 0; s < shapes.size(); s++) {
            List<Result> rs = results.get(s);
            System.out.printf(
                    Locale.ROOT,
                    "  %-28s %,8.0f jobs/s; enqueue p99 %6.2f ms; enqueue -> handler p99 %6.2f ms%n",
                    shapes.get(s).name(),
                    median(rs.stream().mapToDouble(Result::jobsPerSecond).toArray()),
                    median(rs.stream().mapToDouble(r -> ms(r.enqueue(), 99)).toArray()),
                    median(rs.stream().mapToDouble(r -> ms(r.endToEnd(), 99)).toArray()));
        }
    }

    private static Result round(Shape shape, int jobs, int producers, int concurrency, int partitions)
            throws Exception {
        String prefix = "benchrepl-" + System.nanoTime();
        KafkaSettings settings = KafkaSettings.of(shape.bootstrap())
                .withPrefix(prefix)
                .withGroup(prefix + "-workers")
                .withPartitions(partitions)
                .withReplication(shape.replicationFactor(), shape.minInsyncReplicas());
        Histogram enqueue = new ConcurrentHistogram(TimeUnit.SECONDS.toNanos(60), 3);
        Histogram endToEnd = new ConcurrentHistogram(TimeUnit.SECONDS.toNanos(60), 3);
        CountDownLatch done = new CountDownLatch(jobs);
        try (Worker worker = Worker.builder()
                .provider(KafkaProvider.connect(settings))
                .delays(RedisDelays.connect(
                        RedisSettings.of(System.getProperty("bench.redis.url", "redis://127.0.0.1:6379"))
                                .withPrefix(prefix)))
                .queues("jobs")
                .concurrency(concurrency)
                .shutdownGrace(Duration.ofSeconds(5))
                .build()) {
            worker.register("work", Job.class, (ctx, job) -> {
                endToEnd.recordValue(Math.max(0, System.nanoTime() - job.sentNanos()));
                done.countDown();
                return Next.done();
            });
            worker.register("warm", Job.class, (ctx, job) -> Next.done());
            worker.start();
            worker.enqueue("warm", new Job(System.nanoTime()), EnqueueOptions.onQueue("jobs")); // creates the topic
            ExecutorService pool = Executors.newFixedThreadPool(producers);
            long started = System.nanoTime();
            List<Future<?>> sent = new ArrayList<>();
            for (int t = 0; t < producers; t++) {
                int share = jobs / producers + (t < jobs % producers ? 1 : 0);
                sent.add(pool.submit(() -> {
                    for (int i = 0; i < share; i++) {
                        long at = System.nanoTime();
                        worker.enqueue("work", new Job(at), EnqueueOptions.onQueue("jobs"));
                        enqueue.recordValue(System.nanoTime() - at);
                    }
                    return null;
                }));
            }
            for (Future<?> f : sent) {
                f.get(10, TimeUnit.MINUTES);
            }
            if (!done.await(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("jobs did not finish within 10 minutes on " + shape.name());
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            pool.shutdownNow();
            return new Result(jobs / seconds, enqueue, endToEnd);
        }
    }

    private static double ms(Histogram h, double percentile) {
        return h.getValueAtPercentile(percentile) / 1e6;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        return sorted.length == 0 ? Double.NaN : sorted[sorted.length / 2];
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (Exception e) {
            return "?";
        }
    }
}
