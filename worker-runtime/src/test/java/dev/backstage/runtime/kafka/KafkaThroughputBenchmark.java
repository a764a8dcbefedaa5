package dev.backstage.runtime.kafka;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.redis.RedisDelays;
import dev.backstage.runtime.redis.RedisTestSupport;
import dev.backstage.testsupport.EmbeddedKafka;
import dev.backstage.testsupport.UniqueNames;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * No-op jobs per second through one {@link Worker} on the Kafka provider, against a raw kafka-clients
 * poll/commit loop reading the same topic (same partitions, same records) with its own fresh group, in
 * the same run on the in-process broker. Not part of {@code mvn test} (the class name matches no
 * surefire include, and the test is gated by a property). Run it with:
 *
 * <pre>
 * mvn -q -B -ntp -o -pl worker-runtime -am test -Dtest=KafkaThroughputBenchmark \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dbenchmark=kafka
 * </pre>
 *
 * Figures are printed to {@code worker-runtime/target/surefire-reports/*KafkaThroughputBenchmark-output.txt}.
 * Knobs: {@code -Dbenchmark.records=1000000 -Dbenchmark.rounds=3 -Dbenchmark.concurrency=16
 * -Dbenchmark.prefetch=256 -Dbenchmark.partitions=4 -Dbenchmark.warmups=3}; {@code -Dbenchmark.only=worker} (or {@code core}, {@code raw}) runs one side alone
 * (for a profiler). As a plain main class (prints to the console):
 * {@code bin/bench dev.backstage.runtime.kafka.KafkaThroughputBenchmark [records] [rounds] [concurrency] [prefetch]}.
 *
 * <p>The raw loop is measured three times: bare (poll, count, commitAsync per poll); decoding each value as
 * a Jackson tree (what a hand-written job consumer would do); and decoding it exactly as the worker does
 * (envelope + payload into the task's type), which leaves the runtime's own overhead as the difference. Each side is timed from its first record to its last.
 *
 * <p>The machine running it may be shared, so each phase also reports the process CPU it used (broker
 * included: it runs in this JVM) and the CPU per job, which varies far less than jobs/s under load.
 *
 * <p>For attribution a fourth figure runs the same worker core on deliveries made in memory (no broker,
 * no Kafka provider): the ceiling the core's per-delivery dispatch allows on this machine. It is a
 * yardstick, not a test of anything.
 */
class KafkaThroughputBenchmark {
    record Job(int n) {}

    @Test
    @EnabledIfSystemProperty(named = "benchmark", matches = "kafka")
    void noOpJobsThroughOneWorkerVersusARawPollCommitLoop() throws Exception {
        assertTrue(run() > 0);
    }

    public static void main(String[] args) throws Exception {
        String[] keys = {"benchmark.records", "benchmark.rounds", "benchmark.concurrency", "benchmark.prefetch"};
        for (int i = 0; i < args.length && i < keys.length; i++) {
            System.setProperty(keys[i], args[i]);
        }
        run();
        System.exit(0);
    }

    static double run() throws Exception {
        int records = Integer.getInteger("benchmark.records", 1_000_000);
        int partitions = Integer.getInteger("benchmark.partitions", 4);
        int concurrency = Integer.getInteger("benchmark.concurrency", 16);
        int prefetch = Integer.getInteger("benchmark.prefetch", 256);
        int rounds = Integer.getInteger("benchmark.rounds", 3);
        String bootstrap = EmbeddedKafka.shared().bootstrapServers();
        String prefix = UniqueNames.prefix("bench");
        String topic = prefix + ".jobs";
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        produce(bootstrap, topic, records);
        String only = System.getProperty("benchmark.only", "");
        if (!only.isEmpty()) {
            // For profiling one side alone (e.g. under JFR); prints no ratio.
            for (int round = 1; round <= rounds; round++) {
                Measured m = switch (only) {
                    case "worker" -> worker(bootstrap, prefix, records, concurrency, prefetch);
                    case "core" -> coreCeiling(records, concurrency, prefetch);
                    case "raw" -> rawLoop(bootstrap, topic, records, RawWork.NONE);
                    default -> throw new IllegalArgumentException("benchmark.only is worker, core or raw, not " + only);
                };
                System.out.printf("%s only, round %d: %s%n", only, round, m);
            }
            return 1;
        }
        System.out.printf("benchmark: %d no-op jobs on %d partitions, worker concurrency %d prefetch %d, %d warm-up"
                + " and %d measured rounds, heap %d MB%n", records, partitions, concurrency, prefetch,
                Integer.getInteger("benchmark.warmups", 3), rounds, Runtime.getRuntime().maxMemory() >> 20);

        List<Measured> raws = new ArrayList<>();
        List<Measured> rawJsons = new ArrayList<>();
        List<Measured> rawDecodes = new ArrayList<>();
        List<Measured> workers = new ArrayList<>();
        List<Measured> cores = new ArrayList<>();
        // Warm-up rounds first: the worker's path is longer than the raw loop's and the JIT needs a few million
        // records before it settles (measured: the worker's rate kept rising until its 4th million). Then the
        // sides alternate so neither always runs on a warmer JVM.
        int warmups = Integer.getInteger("benchmark.warmups", 3);
        for (int i = 0; i < warmups; i++) {
            rawLoop(bootstrap, topic, records, RawWork.NONE);
            rawLoop(bootstrap, topic, records, RawWork.JSON_TREE);
            rawLoop(bootstrap, topic, records, RawWork.WORKER_DECODE);
            worker(bootstrap, prefix, records, concurrency, prefetch);
            coreCeiling(records, concurrency, prefetch);
        }
        for (int round = 1; round <= rounds; round++) {
            Measured raw = rawLoop(bootstrap, topic, records, RawWork.NONE);
            Measured rawJson = rawLoop(bootstrap, topic, records, RawWork.JSON_TREE);
            Measured rawDecode = rawLoop(bootstrap, topic, records, RawWork.WORKER_DECODE);
            Measured w = worker(bootstrap, prefix, records, concurrency, prefetch);
            Measured core = coreCeiling(records, concurrency, prefetch);
            System.out.printf("round %d: raw %s | raw+json tree %s | raw+worker decode %s | worker %s | core alone %s%n",
                    round, raw, rawJson, rawDecode, w, core);
            raws.add(raw);
            rawJsons.add(rawJson);
            rawDecodes.add(rawDecode);
            workers.add(w);
            cores.add(core);
        }
        double raw = median(raws, Measured::jobsPerSecond);
        double rawJson = median(rawJsons, Measured::jobsPerSecond);
        double rawDecode = median(rawDecodes, Measured::jobsPerSecond);
        double worker = median(workers, Measured::jobsPerSecond);
        double core = median(cores, Measured::jobsPerSecond);
        System.out.printf("RESULT raw poll/commit loop: %.0f jobs/s (median of %d)%n", raw, rounds);
        System.out.printf("RESULT raw loop decoding JSON as a tree: %.0f jobs/s (median of %d)%n", rawJson, rounds);
        System.out.printf("RESULT raw loop with the worker's decoding: %.0f jobs/s (median of %d)%n", rawDecode, rounds);
        System.out.printf("RESULT worker (Kafka provider): %.0f jobs/s (median of %d)%n", worker, rounds);
        System.out.printf("RESULT worker core alone, in-memory deliveries: %.0f jobs/s (median of %d)%n", core, rounds);
        System.out.printf("RESULT process CPU in the timed window (broker included, median): raw %.2f us/job on %.2f"
                        + " cores, raw+json tree %.2f us/job on %.2f cores, raw+worker decode %.2f us/job on %.2f cores,"
                        + " worker %.2f us/job on %.2f cores, core alone %.2f us/job on %.2f cores%n",
                median(raws, Measured::cpuMicrosPerJob), median(raws, Measured::cores),
                median(rawJsons, Measured::cpuMicrosPerJob), median(rawJsons, Measured::cores),
                median(rawDecodes, Measured::cpuMicrosPerJob), median(rawDecodes, Measured::cores),
                median(workers, Measured::cpuMicrosPerJob), median(workers, Measured::cores),
                median(cores, Measured::cpuMicrosPerJob), median(cores, Measured::cores));
        System.out.printf("RESULT ratio worker/raw = %.2f (target >= 0.80), worker/raw+json tree = %.2f,"
                + " worker/raw+worker decode = %.2f, worker/core-alone = %.2f%n", worker / raw, worker / rawJson,
                worker / rawDecode, worker / core);
        return worker / raw;
    }

    private static double median(List<Measured> values, java.util.function.ToDoubleFunction<Measured> figure) {
        List<Double> sorted = values.stream().map(figure::applyAsDouble).sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** The same worker core fed from memory: no broker, no provider work, settlement is a no-op. */
    private static Measured coreCeiling(int records, int concurrency, int prefetch) throws Exception {
        AtomicInteger done = new AtomicInteger();
        TimedWindow window = new TimedWindow();
        CountDownLatch all = new CountDownLatch(1);
        Worker worker = Worker.builder().provider(new InMemoryJobs(records)).queues("jobs").concurrency(concurrency)
                .prefetch(prefetch).shutdownGrace(Duration.ofSeconds(10)).build();
        worker.register("noop", Job.class, (ctx, job) -> {
            window.first();
            if (done.incrementAndGet() == records) {
                all.countDown();
            }
            return Next.done();
        });
        try {
            worker.start();
            if (!all.await(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("core handled only " + done.get() + " of " + records);
            }
            return window.end(records);
        } finally {
            worker.close();
        }
    }

    /**
     * One side's figures over its timed window (first record to last): jobs/s, and the process CPU spent in
     * that window (broker included: it runs in this JVM) as cores kept busy and microseconds per job. Cores
     * near 2 mean the side was CPU-bound on this machine; well below 2, it was waiting on something.
     */
    record Measured(double jobsPerSecond, double cores, double cpuMicrosPerJob, String threads) {
        @Override
        public String toString() {
            return String.format("%.0f jobs/s, %.2f cores, %.2f us CPU/job%s", jobsPerSecond, cores, cpuMicrosPerJob,
                    threads.isEmpty() ? "" : " (" + threads + ")");
        }
    }

    /**
     * Marks the first record (any thread, first call wins) and measures up to {@link #end}; also splits the
     * window's CPU by thread group (the worker's poll thread, its handler threads, the rest: broker, GC is not
     * a Java thread and shows only in the total), to show which one a side is bound by.
     */
    private static final class TimedWindow {
        private static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();
        private final AtomicLong startNanos = new AtomicLong();
        private volatile long startCpuNanos;
        private volatile Map<String, Long> startByGroup = Map.of();

        void first() {
            if (startNanos.get() == 0 && startNanos.compareAndSet(0, System.nanoTime())) {
                startCpuNanos = processCpu();
                startByGroup = cpuByGroup();
            }
        }

        Measured end(long jobs) {
            long wall = System.nanoTime() - startNanos.get();
            long cpu = processCpu() - startCpuNanos;
            Map<String, Long> byGroup = cpuByGroup();
            StringBuilder threads = new StringBuilder();
            for (String group : List.of("poll thread", "handlers")) {
                long used = byGroup.getOrDefault(group, 0L) - startByGroup.getOrDefault(group, 0L);
                if (used > 0) {
                    threads.append(threads.length() == 0 ? "" : ", ")
                            .append(String.format("%s %.2f cores", group, used / (double) wall));
                }
            }
            return new Measured(jobs / (wall / 1e9), cpu / (double) wall, cpu / 1000.0 / jobs, threads.toString());
        }

        /** CPU so far of live threads by group; a thread that ends inside the window is not counted. */
        private static Map<String, Long> cpuByGroup() {
            Map<String, Long> groups = new java.util.HashMap<>();
            for (java.lang.management.ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
                if (info == null) {
                    continue;
                }
                String name = info.getThreadName();
                String group = name.startsWith("backstage-kafka-jobs") || name.equals("in-memory-feeder") ? "poll thread"
                        : name.startsWith("backstage-handler") ? "handlers" : null;
                long cpu = group == null ? -1 : THREADS.getThreadCpuTime(info.getThreadId());
                if (cpu > 0) {
                    groups.merge(group, cpu, Long::sum);
                }
            }
            return groups;
        }

        private static long processCpu() {
            return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                    .getOperatingSystemMXBean()).getProcessCpuTime();
        }
    }

    private static void produce(String bootstrap, String topic, int records) throws Exception {
        Map<String, Object> config = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, 20,
                ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        JobValueCodec codec = new JobValueCodec();
        try (var producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < records; i++) {
                byte[] value = codec.encode(new dev.backstage.runtime.spi.OutgoingJob("jobs", "noop",
                        "{\"n\":" + i + "}", System.currentTimeMillis(), null, 1, null), "job-" + i);
                producer.send(new ProducerRecord<>(topic, value));
            }
            producer.flush();
        }
    }

    /** A raw consumer loop with its own group: poll, handle inline, commitAsync after each poll. */
    /** What the raw loop does with each record. */
    enum RawWork {
        /** Nothing: count it (the bare poll/commit loop). */
        NONE,
        /** Jackson's tree of the whole value, then the payload field (what a hand-written consumer would do). */
        JSON_TREE,
        /** The worker's own decoding: the job envelope (streaming) and the payload into the task's type. */
        WORKER_DECODE
    }

    private static Measured rawLoop(String bootstrap, String topic, int records, RawWork work) {
        Map<String, Object> config = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, UniqueNames.prefix("raw"),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        ObjectMapper json = new ObjectMapper();
        JobValueCodec envelope = new JobValueCodec();
        dev.backstage.runtime.core.PayloadCodec payloads = dev.backstage.runtime.core.PayloadCodec.defaults();
        long count = 0;
        long checksum = 0;
        TimedWindow window = new TimedWindow();
        try (var consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            while (count < records) {
                var batch = consumer.poll(Duration.ofMillis(100));
                if (batch.isEmpty()) {
                    continue;
                }
                window.first();
                for (ConsumerRecord<byte[], byte[]> r : batch) {
                    checksum += switch (work) {
                        case NONE -> r.value().length;
                        case JSON_TREE -> json.readTree(r.value()).get("payload").get("n").asInt();
                        case WORKER_DECODE -> payloads.decode(((JobValueCodec.Valid) envelope.decode(r.value()))
                                .payloadBytes(), Job.class).n();
                    };
                    count++;
                }
                consumer.commitAsync();
            }
            Measured measured = window.end(count);
            consumer.commitSync();
            if (checksum == 42) {
                System.out.println(); // keeps the JIT from discarding the work
            }
            return measured;
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One worker with the Kafka provider, a fresh group, and a no-op task. */
    private static Measured worker(String bootstrap, String prefix, int records, int concurrency, int prefetch)
            throws Exception {
        AtomicInteger done = new AtomicInteger();
        TimedWindow window = new TimedWindow();
        CountDownLatch all = new CountDownLatch(1);
        try (RedisTestSupport redis = new RedisTestSupport()) {
            KafkaSettings settings = KafkaSettings.of(bootstrap).withPrefix(prefix).withGroup(UniqueNames.prefix("bench"));
            Worker worker = Worker.builder().provider(KafkaProvider.connect(settings))
                    .delays(RedisDelays.connect(redis.settings())).queues("jobs").concurrency(concurrency)
                    .prefetch(prefetch).shutdownGrace(Duration.ofSeconds(10)).build();
            worker.register("noop", Job.class, (ctx, job) -> {
                window.first();
                if (done.incrementAndGet() == records) {
                    all.countDown();
                }
                return Next.done();
            });
            try {
                worker.start();
                if (!all.await(10, TimeUnit.MINUTES)) {
                    throw new IllegalStateException("worker handled only " + done.get() + " of " + records);
                }
                return window.end(records);
            } finally {
                worker.close();
            }
        }
    }

}
