package dev.backstage.runtime.bench;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.rabbitmq.RabbitMqProvider;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.OutgoingJob;
import dev.backstage.runtime.spi.ProviderSettings;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * RabbitMQ benchmark (not a test), alternating both sides of each ratio in one run:
 * <ol>
 *   <li>consume: no-op jobs/s through one {@link Worker} versus a raw amqp-client consumer doing the same
 *       work (manual ack per message, same prefetch) — the ceiling;
 *   <li>publish: {@code JobsCapability.publish} (waits for each confirm) from 1 and 8 threads, versus a raw
 *       loop that publishes with confirms and waits once at the end (streaming confirms);
 *   <li>enqueue → handler latency at low load.
 * </ol>
 * Run: {@code bin/bench dev.backstage.runtime.bench.RabbitMqThroughputBenchmark [jobs] [rounds]}.
 */
public final class RabbitMqThroughputBenchmark {
    private static final String URL = System.getenv().getOrDefault("BACKSTAGE_RABBITMQ_URL",
            "amqp://guest:guest@127.0.0.1:5672");
    private static final int CONCURRENCY = 16;
    private static final int PREFETCH = 256;

    public static void main(String[] args) throws Exception {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(URL);
        try (Connection connection = factory.newConnection("bench")) {
            runRaw(connection, 2_000); // warm-up, both paths
            runWorker(connection, 2_000);
            List<Double> raw = new ArrayList<>();
            List<Double> worker = new ArrayList<>();
            for (int round = 1; round <= rounds; round++) {
                raw.add(runRaw(connection, jobs));
                worker.add(runWorker(connection, jobs));
                System.out.printf(Locale.ROOT, "round %d: raw %.0f jobs/s, worker %.0f jobs/s%n", round,
                        raw.get(round - 1), worker.get(round - 1));
            }
            System.out.printf(Locale.ROOT, "%nconsume throughput, %d no-op jobs, median of %d rounds:%n", jobs, rounds);
            System.out.printf(Locale.ROOT, "  raw amqp-client consumer (prefetch %d, ack each): %,8.0f jobs/s%n", PREFETCH,
                    median(raw));
            System.out.printf(Locale.ROOT, "  Worker (concurrency %d, prefetch %d)            : %,8.0f jobs/s%n",
                    CONCURRENCY, PREFETCH, median(worker));
            System.out.printf(Locale.ROOT, "  ratio worker / raw                                : %8.2f%n",
                    median(worker) / median(raw));
            publishRates(connection, Math.min(jobs, 5_000));
            latency();
        }
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Double::compare);
        return sorted.get(sorted.size() / 2);
    }

    /** Fills {@code queue} with job bodies as the provider writes them, streaming confirms. */
    private static void preload(Connection connection, String queue, int jobs) throws Exception {
        try (Channel ch = connection.createChannel()) {
            ch.queueDeclare(queue, true, false, false, null);
            ch.queueDeclare(queue + ".dead-letter", true, false, false, null);
            ch.confirmSelect();
            AMQP.BasicProperties props = new AMQP.BasicProperties.Builder().deliveryMode(2).build();
            for (int i = 0; i < jobs; i++) {
                ch.basicPublish("", queue, props, ("{\"queue\":\"default\",\"taskName\":\"noop\",\"payload\":{\"n\":" + i
                        + "},\"enqueuedAt\":" + System.currentTimeMillis() + ",\"meta\":{},\"deliveryCount\":1,"
                        + "\"jobId\":\"j" + i + "\"}").getBytes(StandardCharsets.UTF_8));
            }
            ch.waitForConfirmsOrDie(60_000);
        }
    }

    private static void delete(Connection connection, String prefix) throws Exception {
        try (Channel ch = connection.createChannel()) {
            ch.queueDelete(prefix + ".default");
            ch.queueDelete(prefix + ".default.dead-letter");
            for (int level = 0; level < 25; level++) {
                ch.queueDelete(String.format("%s.delay-level.%02d", prefix, level));
                ch.exchangeDelete(String.format("%s.delay-level.%02d", prefix, level));
            }
            ch.exchangeDelete(prefix + ".delay-deliver");
        }
    }

    static double runRaw(Connection connection, int jobs) throws Exception {
        String prefix = "bench-raw-" + System.nanoTime();
        preload(connection, prefix + ".default", jobs);
        CountDownLatch done = new CountDownLatch(jobs);
        Channel ch = connection.createChannel();
        ch.basicQos(PREFETCH, true);
        long start = System.nanoTime();
        ch.basicConsume(prefix + ".default", false, new DefaultConsumer(ch) {
            @Override
            public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body)
                    throws java.io.IOException {
                getChannel().basicAck(envelope.getDeliveryTag(), false);
                done.countDown();
            }
        });
        done.await(5, TimeUnit.MINUTES);
        double seconds = (System.nanoTime() - start) / 1e9;
        ch.close();
        delete(connection, prefix);
        return jobs / seconds;
    }

    static double runWorker(Connection connection, int jobs) throws Exception {
        String prefix = "bench-worker-" + System.nanoTime();
        preload(connection, prefix + ".default", jobs);
        AtomicLong handled = new AtomicLong();
        Worker worker = Worker.builder().provider(RabbitMqProvider.connect(settings(prefix)))
                .queues("default").concurrency(CONCURRENCY).prefetch(PREFETCH).build();
        worker.register("noop", Map.class, (ctx, p) -> {
            handled.incrementAndGet();
            return Next.done();
        });
        long start = System.nanoTime();
        worker.start();
        while (handled.get() < jobs || worker.inFlight() > 0) {
            Thread.sleep(1);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        worker.close();
        delete(connection, prefix);
        return jobs / seconds;
    }

    private static ProviderSettings settings(String prefix) {
        return new ProviderSettings("rabbitmq", URL, prefix, null, Map.of("delayedExchange", "fallback"));
    }

    static void publishRates(Connection connection, int jobs) throws Exception {
        String prefix = "bench-publish-" + System.nanoTime();
        double rawRate;
        double rawSyncRate;
        try (Channel ch = connection.createChannel()) {
            ch.queueDeclare(prefix + ".raw", true, false, false, null);
            ch.confirmSelect();
            AMQP.BasicProperties props = new AMQP.BasicProperties.Builder().deliveryMode(2).build();
            long start = System.nanoTime();
            for (int i = 0; i < jobs; i++) {
                ch.basicPublish("", prefix + ".raw", props, ("{\"taskName\":\"noop\",\"payload\":" + i + "}")
                        .getBytes(StandardCharsets.UTF_8));
            }
            ch.waitForConfirmsOrDie(60_000);
            rawRate = jobs / ((System.nanoTime() - start) / 1e9);
            start = System.nanoTime();
            for (int i = 0; i < jobs; i++) {
                ch.basicPublish("", prefix + ".raw", props, ("{\"taskName\":\"noop\",\"payload\":" + i + "}")
                        .getBytes(StandardCharsets.UTF_8));
                ch.waitForConfirmsOrDie(10_000);
            }
            rawSyncRate = jobs / ((System.nanoTime() - start) / 1e9);
            ch.queueDelete(prefix + ".raw");
        }
        try (RabbitMqProvider provider = RabbitMqProvider.connect(settings(prefix))) {
            double one = publishWith(provider, jobs, 1);
            double eight = publishWith(provider, jobs, 8);
            System.out.printf(Locale.ROOT, "%npublish, %d persistent jobs:%n", jobs);
            System.out.printf(Locale.ROOT, "  raw, confirms awaited once at the end : %,8.0f jobs/s%n", rawRate);
            System.out.printf(Locale.ROOT, "  raw, each confirm awaited (1 thread)   : %,8.0f jobs/s%n", rawSyncRate);
            System.out.printf(Locale.ROOT, "  jobs().publish, 1 thread (each waits)  : %,8.0f jobs/s%n", one);
            System.out.printf(Locale.ROOT, "  jobs().publish, 8 threads              : %,8.0f jobs/s%n", eight);
        }
        delete(connection, prefix);
    }

    private static double publishWith(RabbitMqProvider provider, int jobs, int threads) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        AtomicLong next = new AtomicLong();
        long start = System.nanoTime();
        List<java.util.concurrent.Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            futures.add(pool.submit(() -> {
                while (next.getAndIncrement() < jobs) {
                    provider.jobs().publish(OutgoingJob.fresh("default", "noop", "1", JobMeta.NONE));
                }
                return null;
            }));
        }
        for (var f : futures) {
            f.get();
        }
        pool.shutdown();
        return jobs / ((System.nanoTime() - start) / 1e9);
    }

    /** Enqueue → handler start latency, one job every 4 ms (low load). */
    static void latency() throws Exception {
        String prefix = "bench-latency-" + System.nanoTime();
        Histogram histogram = LowLoadLatency.measure(Worker.builder().provider(RabbitMqProvider.connect(settings(prefix)))
                .queues("default").concurrency(16).build());
        int n = LowLoadLatency.JOBS;
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(URL);
        try (Connection connection = factory.newConnection("bench-cleanup")) {
            delete(connection, prefix);
        }
        System.out.printf(Locale.ROOT, "%nlatency enqueue (incl. confirm) -> handler, %d jobs at 250/s: p50 %.2f ms, "
                + "p99 %.2f ms, max %.2f ms%n", n, histogram.getValueAtPercentile(50) / 1000.0,
                histogram.getValueAtPercentile(99) / 1000.0, histogram.getMaxValue() / 1000.0);
    }

    private RabbitMqThroughputBenchmark() {}
}
