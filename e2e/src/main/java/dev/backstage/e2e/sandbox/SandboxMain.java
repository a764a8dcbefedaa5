package dev.backstage.e2e.sandbox;

import dev.backstage.examples.orders.Order;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.redis.RedisProvider;
import dev.backstage.runtime.redis.RedisSettings;
import dev.backstage.runtime.spi.QueueBacklog;
import io.fabric8.kubernetes.api.model.Event;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The README's main job: the whole Backstage loop on this machine. The real local cluster
 * ({@code bin/control-plane}: kube-apiserver, etcd, kube-controller-manager, and a node agent running pods as
 * JVMs), the operator installed with the Helm chart, and the local Redis. It applies a topology and an
 * autoscaled pool, enqueues orders (some with a declined card), and shows the pool live — replicas, backlog, dead
 * letters — while it scales up, drains and scales back down; then a summary. {@code --keep} leaves the cluster up
 * for your own {@code kubectl}/{@code helm}; where the control plane cannot be built it says why and runs on the
 * fabric8 mock API instead ({@code --mock} asks for that).
 */
public final class SandboxMain {
    private static final String USAGE = """
            usage: bin/demo [ORDERS] [--keep] [--mock]
              ORDERS   orders to enqueue (default 5000)
              --keep   leave the cluster up afterwards and print its KUBECONFIG (Ctrl-C stops the node agent);
                       bin/demo also starts the local RabbitMQ and Kafka for examples/manifests/local/
              --mock   run on the fabric8 mock API instead of the real local control plane""";

    private SandboxMain() {}

    public static void main(String[] args) throws Exception {
        dev.backstage.runtime.logging.LogBackend.configureFromEnvOrExit(System.getenv());
        int orders = 5000;
        boolean keep = false;
        boolean mock = false;
        for (String arg : args) {
            switch (arg) {
                case "--keep" -> keep = true;
                case "--mock" -> mock = true;
                case "-h", "--help" -> {
                    System.out.println(USAGE);
                    return;
                }
                default -> {
                    try {
                        orders = Integer.parseInt(arg);
                    } catch (NumberFormatException e) {
                        System.err.println("bin/demo: '" + arg + "' is not a number of orders or an option\n" + USAGE);
                        System.exit(2);
                    }
                    if (orders < 1) {
                        System.err.println("bin/demo: the number of orders must be at least 1, got " + arg);
                        System.exit(2);
                    }
                }
            }
        }
        String redisUrl = System.getenv().getOrDefault("BACKSTAGE_REDIS_URL", "redis://127.0.0.1:6379");
        String prefix = "sandbox-" + System.currentTimeMillis();
        Path work = Files.createTempDirectory("backstage-sandbox-");
        DemoCluster cluster = null;
        if (!mock) {
            System.out.println("Backstage sandbox: starting the local Kubernetes control plane (built on first use) …");
            try {
                cluster = RealSandbox.start("shop", work);
            } catch (RuntimeException e) {
                System.out.println("the local control plane is not available (" + e.getMessage()
                        + "); running on the fabric8 mock API instead");
            }
        }
        if (cluster == null) {
            cluster = SandboxCluster.start("shop", work);
        }
        System.out.println("Backstage sandbox on " + cluster.describe() + "; Redis at " + redisUrl);
        System.out.println("pod logs in " + work);
        // On any signal that ends the JVM (Ctrl-C, SIGTERM, SIGHUP), stop the pods it runs: the operator and the
        // workers are child JVMs and would otherwise go on reconciling and consuming after the sandbox is gone.
        DemoCluster running = cluster;
        java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
        Runnable stop = () -> {
            if (closed.compareAndSet(false, true)) {
                running.close();
            }
        };
        Runtime.getRuntime().addShutdownHook(new Thread(stop, "sandbox-stop"));
        try {
            run(cluster, orders, redisUrl, prefix);
            if (keep && cluster instanceof RealSandbox real) {
                System.out.println();
                System.out.println("the cluster stays up; in another shell:");
                System.out.println("  export KUBECONFIG=" + real.cluster().kubeconfig());
                System.out.println(
                        "  export PATH=" + real.cluster().root().resolve(".tools/bin") + ":$PATH   # kubectl and helm");
                System.out.println("  kubectl get bwp -A -w");
                System.out.println("  kubectl create namespace shop-kafka && kubectl apply -n shop-kafka -f "
                        + real.cluster().root().resolve("examples/manifests/local/kafka.yaml")
                        + "   # or redis.yaml, rabbitmq.yaml: they run as shipped on the local brokers");
                System.out.println(
                        "pods run in this process: Ctrl-C stops them (bin/control-plane down stops the control plane)");
                Thread.currentThread().join();
            }
        } finally {
            stop.run();
        }
    }

    private static void run(DemoCluster cluster, int orders, String redisUrl, String prefix) throws Exception {
        {
            cluster.apply(SandboxManifests.redis(redisUrl, prefix));
            System.out.println(
                    "applied topology shop-redis and pool shop-workers (autoscaling 1..4, 250 jobs per replica)");
            if (cluster instanceof RealSandbox real) {
                real.consoleInstructions().forEach(System.out::println);
            }
            long started = System.nanoTime();
            waitUntil(
                    () -> cluster.readyReplicas("shop-workers") >= 1,
                    Duration.ofMinutes(2),
                    "the first worker to be ready");
            int declined = Math.max(1, orders / 100);
            System.out.printf(
                    Locale.ROOT,
                    "enqueuing %d orders (%d will be declined and dead-lettered) while the table" + " runs%n%n",
                    orders,
                    declined);
            System.out.println(PoolView.header());
            // The table starts before the first order, so the scale-up, the demo's headline, shows from its start.
            java.util.concurrent.CompletableFuture<Void> enqueued =
                    java.util.concurrent.CompletableFuture.runAsync(() -> enqueue(redisUrl, prefix, orders));
            List<PoolView> timeline = new ArrayList<>();
            int peak = 0;
            long drainedAt = 0;
            long deadline = System.nanoTime() + Duration.ofMinutes(6).toNanos();
            try (RedisProvider probe = RedisProvider.connect(
                            RedisSettings.of(redisUrl).withPrefix(prefix).withGroup("shop-workers"));
                    TaskCounter receipts = new TaskCounter(redisUrl, prefix + ":default", "sendReceipt")) {
                while (System.nanoTime() < deadline) {
                    double t = (System.nanoTime() - started) / 1e9;
                    QueueBacklog q = probe.backlogProbe()
                            .measure(List.of("default"), "shop-workers")
                            .queues()
                            .get(0);
                    long completed = receipts.count();
                    PoolView view = PoolView.of(t, cluster.pool("shop-workers"), completed, orders);
                    timeline.add(view);
                    peak = Math.max(peak, view.replicas());
                    System.out.println(view.line());
                    if (enqueued.isCompletedExceptionally()) {
                        enqueued.join(); // throws what stopped the enqueuing
                    }
                    boolean drained = enqueued.isDone()
                            && q.undelivered() == 0
                            && q.inFlight() == 0
                            && q.deadLetters() >= declined;
                    if (!drained) {
                        drainedAt = 0;
                    } else if (drainedAt == 0) {
                        drainedAt = System.nanoTime();
                    }
                    // Done once drained and back at the minimum (or, for a batch too small to scale, a moment later).
                    boolean settled = drainedAt > 0
                            && view.replicas() <= 1
                            && (peak > 1
                                    || System.nanoTime() - drainedAt
                                            > Duration.ofSeconds(5).toNanos());
                    if (settled) {
                        break;
                    }
                    Thread.sleep(1000);
                }
                summary(cluster, timeline, peak, probe, receipts.count(), prefix, orders, declined, started);
            }
        }
    }

    private static void enqueue(String redisUrl, String prefix, int orders) {
        try (Worker producer = Worker.builder()
                .provider(RedisProvider.connect(RedisSettings.of(redisUrl).withPrefix(prefix)))
                .build()) {
            for (int i = 0; i < orders; i++) {
                String card = i % 100 == 0 ? "declined" : i % 50 == 1 ? "flaky" : "visa";
                producer.enqueue("processOrder", new Order("o-" + i, 1000 + i, card), EnqueueOptions.defaults());
            }
        }
    }

    private static void summary(
            DemoCluster cluster,
            List<PoolView> timeline,
            int peak,
            RedisProvider probe,
            long receipts,
            String prefix,
            int orders,
            int declined,
            long started) {
        BackstageWorkerPool pool = cluster.pool("shop-workers");
        QueueBacklog q = probe.backlogProbe()
                .measure(List.of("default"), "shop-workers")
                .queues()
                .get(0);
        System.out.println();
        System.out.println("summary");
        System.out.printf(Locale.ROOT, "  elapsed            %.0f s%n", (System.nanoTime() - started) / 1e9);
        System.out.printf(
                Locale.ROOT,
                "  orders             %d enqueued, %d processed (each chained its sendReceipt job),"
                        + " %d dead-lettered (expected %d)%n",
                orders,
                receipts,
                q.deadLetters(),
                declined);
        System.out.printf(
                Locale.ROOT,
                "  replicas           peak %d, now %d (%s)%n",
                peak,
                timeline.isEmpty() ? 0 : timeline.get(timeline.size() - 1).replicas(),
                cluster.podsSummary());
        System.out.printf(
                Locale.ROOT,
                "  pool status        dead letters %s, last scale: %s%n",
                pool.getStatus() == null || pool.getStatus().getDeadLetters() == null
                        ? "-"
                        : pool.getStatus().getDeadLetters().getTotal(),
                pool.getStatus() == null ? "-" : pool.getStatus().getLastScaleReason());
        var topology = cluster.client()
                .resources(dev.backstage.operator.model.BackstageTopology.class)
                .inNamespace(cluster.namespace())
                .withName("shop-redis")
                .get();
        if (topology != null
                && topology.getStatus() != null
                && topology.getStatus().getSchedules() != null) {
            topology.getStatus()
                    .getSchedules()
                    .forEach(s -> System.out.printf(
                            Locale.ROOT,
                            "  schedule           %s: last fired %s, next %s, missed %s%n",
                            s.getName(),
                            s.getLastFiredTick() == null ? "-" : s.getLastFiredTick(),
                            s.getNextTick(),
                            s.getMissedTicks() == null ? 0 : s.getMissedTicks()));
        }
        List<Event> events = cluster.client()
                .v1()
                .events()
                .inNamespace(cluster.namespace())
                .list()
                .getItems();
        System.out.println("  events:");
        events.stream()
                .sorted(Comparator.comparing(e -> String.valueOf(e.getLastTimestamp())))
                .forEach(e -> System.out.printf("    %-8s %-18s %s%n", e.getType(), e.getReason(), e.getMessage()));
        System.out.println("  inspect the broker: bin/backstage inspect --prefix " + prefix
                + " --group shop-workers --queue default");
    }

    private static void waitUntil(java.util.function.BooleanSupplier condition, Duration max, String what)
            throws InterruptedException {
        System.out.println("waiting for " + what + " …");
        long deadline = System.nanoTime() + max.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out waiting for " + what);
            }
            Thread.sleep(250);
        }
    }
}
