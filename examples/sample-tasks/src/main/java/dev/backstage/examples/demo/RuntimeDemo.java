package dev.backstage.examples.demo;

import dev.backstage.examples.orders.Order;
import dev.backstage.examples.orders.OrderTasks;
import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.api.WorkerTotals;
import dev.backstage.runtime.main.ModuleBinder;
import dev.backstage.runtime.redis.RedisProvider;
import dev.backstage.runtime.redis.RedisSettings;
import dev.backstage.runtime.spi.Backoff;
import dev.backstage.runtime.spi.QueueBacklog;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The runtime on the local Redis: a batch of orders ({@code processOrder} → {@code sendReceipt}), some
 * with a flaky card (fail once, then succeed on retry) and some with a declined card (retried, then
 * dead-lettered), with a live progress line and a closing summary.
 */
public final class RuntimeDemo {
    private RuntimeDemo() {}

    public static void main(String[] args) throws Exception {
        dev.backstage.runtime.logging.LogBackend.configureFromEnvOrExit(System.getenv());
        String url = System.getenv().getOrDefault("BACKSTAGE_REDIS_URL", "redis://127.0.0.1:6379");
        int orders = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        int flaky = Math.max(1, orders / 50);
        int declined = Math.max(1, orders / 100);
        String prefix = "backstage-demo-" + System.currentTimeMillis();
        RedisSettings settings = RedisSettings.of(url).withPrefix(prefix);

        Set<String> receipts = ConcurrentHashMap.newKeySet();
        try (Worker worker = Worker.builder()
                .provider(RedisProvider.connect(settings))
                .queues("default")
                .concurrency(32)
                .maxDeliveries(2)
                .backoff(Backoff.fixed(Duration.ofMillis(250)))
                .shutdownGrace(Duration.ofSeconds(10))
                .build()) {
            new ModuleBinder(worker).install(new OrderTasks(receipts::add));
            worker.start();
            System.out.println(worker.capabilityReport());
            System.out.printf(
                    "enqueueing %d orders on %s:default (%d with a flaky card, %d declined)%n",
                    orders, prefix, flaky, declined);
            long started = System.nanoTime();
            for (int i = 0; i < orders; i++) {
                String card = i < declined ? "declined" : i < declined + flaky ? "flaky" : "visa";
                worker.enqueue("processOrder", new Order("o-" + i, 1000 + i, card), EnqueueOptions.defaults());
            }
            int expectedReceipts = orders - declined;
            while (receipts.size() < expectedReceipts || worker.totals().deadLetters() < declined) {
                printProgress(worker.totals(), receipts.size(), worker.inFlight(), started);
                Thread.sleep(200);
                if (Duration.ofNanos(System.nanoTime() - started).toMinutes() >= 5) {
                    System.out.println("\ngave up waiting after 5 minutes");
                    break;
                }
            }
            printProgress(worker.totals(), receipts.size(), worker.inFlight(), started);
            double seconds = (System.nanoTime() - started) / 1e9;
            WorkerTotals totals = worker.totals();
            System.out.println();
            System.out.println();
            System.out.println("summary");
            System.out.printf(
                    Locale.ROOT,
                    "  processed      %6d deliveries acked (%d orders, %d receipts)%n",
                    totals.acks(),
                    orders - declined,
                    receipts.size());
            System.out.printf(Locale.ROOT, "  retried        %6d deliveries%n", totals.retries());
            System.out.printf(
                    Locale.ROOT,
                    "  dead-lettered  %6d jobs (in %s:default:dead-letter)%n",
                    totals.deadLetters(),
                    prefix);
            System.out.printf(
                    Locale.ROOT, "  elapsed        %6.1f s (%.0f jobs/s)%n", seconds, totals.acks() / seconds);
            try (RedisProvider probe = RedisProvider.connect(settings)) {
                QueueBacklog q = probe.backlogProbe()
                        .measure(List.of("default"), "backstage-workers")
                        .queues()
                        .get(0);
                System.out.printf(
                        "  broker says    undelivered %d, in flight %d, dead letters %d%n",
                        q.undelivered(), q.inFlight(), q.deadLetters());
                var first = probe.deadLetters().list("default", 1);
                if (!first.isEmpty()) {
                    System.out.println("  a dead letter  " + first.get(0).taskName() + ": "
                            + first.get(0).error());
                }
            }
            System.out.println("inspect it:    bin/backstage inspect --prefix " + prefix + " --queue default");
        }
    }

    private static void printProgress(WorkerTotals t, int receipts, int inFlight, long started) {
        System.out.printf(
                Locale.ROOT,
                "\rprocessed %6d | receipts %6d | retried %4d | dead-lettered %4d | in flight %3d | %5.1fs",
                t.acks(),
                receipts,
                t.retries(),
                t.deadLetters(),
                inFlight,
                (System.nanoTime() - started) / 1e9);
        System.out.flush();
    }
}
