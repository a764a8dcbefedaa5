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
 * -Dbenchmark.prefetch=256 -Dbenchmark.partitions=4}. As a plain main class (prints to the console):
 * {@code bin/bench dev.backstage.runtime.kafka.KafkaThroughputBenchmark [records] [rounds] [concurrency] [prefetch]}.
 *
 * <p>The raw loop is measured twice: bare (poll, count, commitAsync per poll) and decoding each value
 * as JSON (the least any job consumer must do). Each side is timed from its first record to its last.
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
        System.out.printf("benchmark: %d no-op jobs on %d partitions, worker concurrency %d prefetch %d, %d rounds%n",
                records, partitions, concurrency, prefetch, rounds);

        List<Double> raws = new ArrayList<>();
        List<Double> rawJsons = new ArrayList<>();
        List<Double> workers = new ArrayList<>();
        List<Double> cores = new ArrayList<>();
        List<Double> rawCpuPerJob = new ArrayList<>();
        List<Double> rawJsonCpuPerJob = new ArrayList<>();
        List<Double> workerCpuPerJob = new ArrayList<>();
        List<Double> coreCpuPerJob = new ArrayList<>();
        // Warm-up round first (JIT), then alternate the sides so neither always runs on a warmer JVM.
        rawLoop(bootstrap, topic, records, false);
        worker(bootstrap, prefix, records, concurrency, prefetch);
        for (int round = 1; round <= rounds; round++) {
            Cpu cpu = Cpu.start();
            double raw = rawLoop(bootstrap, topic, records, false);
            String rawCpu = cpu.cores(records, rawCpuPerJob);
            cpu = Cpu.start();
            double rawJson = rawLoop(bootstrap, topic, records, true);
            String rawJsonCpu = cpu.cores(records, rawJsonCpuPerJob);
            cpu = Cpu.start();
            double w = worker(bootstrap, prefix, records, concurrency, prefetch);
            String workerCpu = cpu.cores(records, workerCpuPerJob);
            cpu = Cpu.start();
            double core = coreCeiling(records, concurrency, prefetch);
            String coreCpu = cpu.cores(records, coreCpuPerJob);
            System.out.printf("round %d: raw %.0f jobs/s (%s), raw+json %.0f jobs/s (%s), worker %.0f jobs/s (%s),"
                    + " core alone %.0f jobs/s (%s)%n", round, raw, rawCpu, rawJson, rawJsonCpu, w, workerCpu, core, coreCpu);
            cores.add(core);
            raws.add(raw);
            rawJsons.add(rawJson);
            workers.add(w);
        }
        double raw = median(raws);
        double rawJson = median(rawJsons);
        double worker = median(workers);
        double core = median(cores);
        System.out.printf("RESULT raw poll/commit loop: %.0f jobs/s (median of %d)%n", raw, rounds);
        System.out.printf("RESULT raw loop decoding JSON: %.0f jobs/s (median of %d)%n", rawJson, rounds);
        System.out.printf("RESULT worker (Kafka provider): %.0f jobs/s (median of %d)%n", worker, rounds);
        System.out.printf("RESULT worker core alone, in-memory deliveries: %.0f jobs/s (median of %d)%n", core, rounds);
        System.out.printf("RESULT process CPU per job (broker included, median): raw %.2f us, raw+json %.2f us,"
                + " worker %.2f us, core alone %.2f us%n", median(rawCpuPerJob), median(rawJsonCpuPerJob),
                median(workerCpuPerJob), median(coreCpuPerJob));
        System.out.printf("RESULT ratio worker/raw = %.2f, worker/raw+json = %.2f (target >= 0.80 of raw),"
                + " worker/core-alone = %.2f%n", worker / raw, worker / rawJson, worker / core);
        return worker / raw;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** The same worker core fed from memory: no broker, no provider work, settlement is a no-op. */
    private static double coreCeiling(int records, int concurrency, int prefetch) throws Exception {
        AtomicInteger done = new AtomicInteger();
        AtomicLong first = new AtomicLong();
        CountDownLatch all = new CountDownLatch(1);
        Worker worker = Worker.builder().provider(new InMemoryJobs(records)).queues("jobs").concurrency(concurrency)
                .prefetch(prefetch).shutdownGrace(Duration.ofSeconds(10)).build();
        worker.register("noop", Job.class, (ctx, job) -> {
            first.compareAndSet(0, System.nanoTime());
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
            return records / ((System.nanoTime() - first.get()) / 1e9);
        } finally {
            worker.close();
        }
    }

    /** Process CPU time over wall time, broker included (it runs in this JVM): how many cores a phase kept busy. */
    private record Cpu(long cpuNanos, long wallNanos) {
        static Cpu start() {
            return new Cpu(processCpu(), System.nanoTime());
        }

        /** Cores kept busy, as text; also records the CPU microseconds per job into {@code perJob}. */
        String cores(int jobs, List<Double> perJob) {
            long cpu = processCpu() - cpuNanos;
            double cores = cpu / (double) (System.nanoTime() - wallNanos);
            perJob.add(cpu / 1000.0 / jobs);
            return String.format("%.2f cores of %d, %.2f us CPU/job", cores, Runtime.getRuntime().availableProcessors(),
                    cpu / 1000.0 / jobs);
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
    private static double rawLoop(String bootstrap, String topic, int records, boolean decodeJson) {
        Map<String, Object> config = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, UniqueNames.prefix("raw"),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        ObjectMapper json = new ObjectMapper();
        long count = 0;
        long checksum = 0;
        long first = 0;
        try (var consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            while (count < records) {
                var batch = consumer.poll(Duration.ofMillis(100));
                if (batch.isEmpty()) {
                    continue;
                }
                if (first == 0) {
                    first = System.nanoTime();
                }
                for (ConsumerRecord<byte[], byte[]> r : batch) {
                    if (decodeJson) {
                        checksum += json.readTree(r.value()).get("payload").get("n").asInt();
                    } else {
                        checksum += r.value().length;
                    }
                    count++;
                }
                consumer.commitAsync();
            }
            long elapsed = System.nanoTime() - first;
            consumer.commitSync();
            if (checksum == 42) {
                System.out.println(); // keeps the JIT from discarding the work
            }
            return count / (elapsed / 1e9);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One worker with the Kafka provider, a fresh group, and a no-op task. */
    private static double worker(String bootstrap, String prefix, int records, int concurrency, int prefetch)
            throws Exception {
        AtomicInteger done = new AtomicInteger();
        AtomicLong first = new AtomicLong();
        CountDownLatch all = new CountDownLatch(1);
        try (RedisTestSupport redis = new RedisTestSupport()) {
            KafkaSettings settings = KafkaSettings.of(bootstrap).withPrefix(prefix).withGroup(UniqueNames.prefix("bench"));
            Worker worker = Worker.builder().provider(KafkaProvider.connect(settings))
                    .delays(RedisDelays.connect(redis.settings())).queues("jobs").concurrency(concurrency)
                    .prefetch(prefetch).shutdownGrace(Duration.ofSeconds(10)).build();
            worker.register("noop", Job.class, (ctx, job) -> {
                first.compareAndSet(0, System.nanoTime());
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
                long elapsed = System.nanoTime() - first.get();
                return records / (elapsed / 1e9);
            } finally {
                worker.close();
            }
        }
    }

}
