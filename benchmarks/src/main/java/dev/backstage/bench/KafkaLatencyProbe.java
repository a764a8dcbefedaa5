package dev.backstage.bench;

import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.Producer;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.core.JobProducer;
import dev.backstage.runtime.kafka.KafkaProvider;
import dev.backstage.runtime.kafka.KafkaSettings;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Diagnosis of the Kafka latency benchmark (not part of {@code bin/bench kafka}): sides chosen by name, alternating
 * every second as {@link Latency} does, after its warm-up. {@code worker} / {@code raw}: the benchmark's two sides;
 * {@code worker1} / {@code raw1}: the same with {@code linger.ms} 1 (the old default); {@code wprod} / {@code rprod}: the Worker's
 * enqueue and a raw send into a topic nobody consumes (the producer alone). With {@code -Dprobe.threads} it instead runs
 * {@code worker} and {@code raw} each alone and prints, per thread, context switches and CPU per job.
 * Run: {@code KafkaLatencyProbe [jobs per side] [sides, e.g. worker,raw,worker1,raw1]} with the broker of
 * {@code bin/bench kafka} ({@code -Dbench.kafka.bootstrap}).
 */
public final class KafkaLatencyProbe {
    public static void main(String[] args) throws Exception {
        KafkaBenchmark.bootstrap = System.getProperty("bench.kafka.bootstrap");
        KafkaBenchmark.concurrency = 4;
        KafkaBenchmark.prefetch = 2048;
        int jobs = Integer.parseInt(args.length > 0 ? args[0] : "5000");
        String sides = args.length > 1 ? args[1] : "worker,raw,wprod,rprod";
        if (System.getProperty("probe.threads") != null) {
            threads(jobs, sides);
            System.exit(0);
        }
        {
            String prefix = "probe-" + System.nanoTime();
            List<Latency.Target> targets = new ArrayList<>();
            for (String s : sides.split(",")) {
                targets.add(
                        switch (s) {
                            case "worker" ->
                                Latency.worker(
                                        "Worker",
                                        Worker.builder()
                                                .provider(
                                                        KafkaProvider.connect(KafkaSettings.of(KafkaBenchmark.bootstrap)
                                                                .withPrefix(prefix)
                                                                .withGroup("latency")))
                                                .delays(KafkaBenchmark.delays(prefix))
                                                .queues("default")
                                                .concurrency(4)
                                                .prefetch(2048)
                                                .build());
                            case "raw" -> new KafkaBenchmark.RawLatency(topic(prefix + ".raw"), 0);
                            case "raw1" -> new KafkaBenchmark.RawLatency(topic(prefix + ".raw1"), 1);
                            case "worker1" ->
                                Latency.worker(
                                        "Worker linger 1",
                                        Worker.builder()
                                                .provider(
                                                        KafkaProvider.connect(KafkaSettings.of(KafkaBenchmark.bootstrap)
                                                                .withPrefix(prefix + "1")
                                                                .withGroup("latency1")
                                                                .withClientProperties(Map.of("linger.ms", "1"))))
                                                .delays(KafkaBenchmark.delays(prefix + "1"))
                                                .queues("default")
                                                .concurrency(4)
                                                .prefetch(2048)
                                                .build());
                            case "wprod" -> workerProducerOnly(prefix + "-wp");
                            case "rprod" -> rawProducerOnly(topic(prefix + ".rp"));
                            default -> throw new IllegalArgumentException(s);
                        });
            }
            Latency.measure("PROBE", targets, jobs, 1_000);
        }
        System.exit(0);
    }

    /** Each side alone for {@code jobs} jobs at 1000/s: per thread (by name), context switches and CPU per job. */
    static void threads(int jobs, String sides) throws Exception {
        for (int pass = 0; pass < 2; pass++) {
            for (String s : sides.split(",")) {
                String prefix = "probe-" + System.nanoTime();
                Latency.Target t = switch (s) {
                    case "worker" ->
                        Latency.worker(
                                "Worker",
                                Worker.builder()
                                        .provider(KafkaProvider.connect(KafkaSettings.of(KafkaBenchmark.bootstrap)
                                                .withPrefix(prefix)
                                                .withGroup("latency")))
                                        .delays(KafkaBenchmark.delays(prefix))
                                        .queues("default")
                                        .concurrency(4)
                                        .prefetch(2048)
                                        .build());
                    case "raw" -> new KafkaBenchmark.RawLatency(topic(prefix + ".raw"), 0);
                    default -> throw new IllegalArgumentException(s);
                };
                java.util.concurrent.atomic.AtomicInteger handled = new java.util.concurrent.atomic.AtomicInteger();
                t.start(sent -> handled.incrementAndGet());
                t.send(System.nanoTime());
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (handled.get() < 1 && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                Thread.sleep(500);
                Map<String, long[]> before = snapshot();
                long next = System.nanoTime();
                for (int i = 0; i < jobs; i++) {
                    next += 1_000_000;
                    while (System.nanoTime() < next) {
                        java.util.concurrent.locks.LockSupport.parkNanos(next - System.nanoTime());
                    }
                    t.send(System.nanoTime());
                }
                while (handled.get() < jobs + 1 && System.nanoTime() < deadline + 60_000_000_000L) {
                    Thread.sleep(5);
                }
                Map<String, long[]> after = snapshot();
                t.close();
                if (pass == 0) {
                    continue;
                }
                System.out.printf(
                        "%n%s alone, %d jobs at 1000/s: per job, by thread: voluntary / involuntary switches, CPU us%n",
                        s, jobs);
                long[] sum = new long[3];
                for (var e : after.entrySet()) {
                    long[] b = before.getOrDefault(e.getKey(), new long[3]);
                    long[] a = e.getValue();
                    double v = (a[0] - b[0]) / (double) jobs,
                            nv = (a[1] - b[1]) / (double) jobs,
                            cpu = (a[2] - b[2]) * 10_000.0 / jobs;
                    for (int k = 0; k < 3; k++) sum[k] += a[k] - b[k];
                    if (v + nv >= 0.01 || cpu >= 0.5) {
                        System.out.printf("  %-45s %6.2f %6.2f %8.1f%n", e.getKey(), v, nv, cpu);
                    }
                }
                System.out.printf(
                        "  %-45s %6.2f %6.2f %8.1f%n",
                        "TOTAL", sum[0] / (double) jobs, sum[1] / (double) jobs, sum[2] * 10_000.0 / jobs);
            }
        }
    }

    /** thread name (numbers collapsed) -> {voluntary switches, involuntary switches, CPU ticks}. */
    static Map<String, long[]> snapshot() throws Exception {
        Map<String, long[]> out = new java.util.TreeMap<>();
        for (java.io.File task : new java.io.File("/proc/self/task").listFiles()) {
            try {
                String status = java.nio.file.Files.readString(task.toPath().resolve("status"));
                String stat = java.nio.file.Files.readString(task.toPath().resolve("stat"));
                String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
                        .replaceAll("[0-9]+", "N");
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
                long vol = 0, inv = 0;
                for (String line : status.split("\n")) {
                    if (line.startsWith("voluntary_ctxt_switches:")) vol = Long.parseLong(line.split("\\s+")[1]);
                    if (line.startsWith("nonvoluntary_ctxt_switches:")) inv = Long.parseLong(line.split("\\s+")[1]);
                }
                long[] a = out.computeIfAbsent(name, k -> new long[3]);
                a[0] += vol;
                a[1] += inv;
                a[2] += ticks;
            } catch (java.io.IOException | RuntimeException gone) {
                // thread ended
            }
        }
        return out;
    }

    static String topic(String name) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaBenchmark.bootstrap))) {
            admin.createTopics(List.of(new NewTopic(name, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        return name;
    }

    /** The Worker's enqueue (JobProducer over the Kafka provider) into a topic nobody consumes. */
    static Latency.Target workerProducerOnly(String prefix) {
        KafkaProvider provider =
                KafkaProvider.connect(KafkaSettings.of(KafkaBenchmark.bootstrap).withPrefix(prefix));
        Producer producer = JobProducer.forProvider(provider);
        return new Latency.Target() {
            Latency.Handled handled;

            public String name() {
                return "Worker enqueue, no consumer";
            }

            public void start(Latency.Handled h) {
                handled = h;
            }

            public void send(long sentNanos) {
                producer.enqueue(
                        "ping", new Ping(sentNanos), EnqueueOptions.defaults().queue("default"));
                handled.handled(sentNanos);
            }

            public void close() {
                provider.close();
            }
        };
    }

    /** A raw send with the Worker's producer settings (acks=all, idempotence, linger.ms 0) into a topic nobody consumes. */
    static Latency.Target rawProducerOnly(String topic) {
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        KafkaBenchmark.bootstrap,
                        ProducerConfig.ACKS_CONFIG,
                        "all",
                        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                        true,
                        ProducerConfig.LINGER_MS_CONFIG,
                        0),
                new ByteArraySerializer(),
                new ByteArraySerializer());
        return new Latency.Target() {
            Latency.Handled handled;

            public String name() {
                return "raw send, no consumer";
            }

            public void start(Latency.Handled h) {
                handled = h;
            }

            public void send(long sentNanos) throws Exception {
                producer.send(new ProducerRecord<>(
                                topic,
                                ("{\"taskName\":\"ping\",\"payload\":{\"sentNanos\":" + sentNanos
                                                + "},\"enqueuedAt\":" + System.currentTimeMillis()
                                                + ",\"meta\":{},\"deliveryCount\":1,\"jobId\":\""
                                                + java.util.UUID.randomUUID() + "\"}")
                                        .getBytes(StandardCharsets.UTF_8)))
                        .get(30, TimeUnit.SECONDS);
                handled.handled(sentNanos);
            }

            public void close() {
                producer.close();
            }
        };
    }

    private KafkaLatencyProbe() {}
}
