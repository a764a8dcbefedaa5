package dev.backstage.e2e.bench;

import dev.backstage.e2e.cluster.LocalCluster;
import dev.backstage.e2e.sandbox.RealSandbox;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Our autoscaler side by side with real KEDA, on the same cluster, broker and load: two identical pools of real
 * worker pods (the sample-tasks image run by the node agent; concurrency 5, prefetch 20, 1 s per job, 2 jobs per
 * order: the order and its chained receipt) on the local Redis, each with its own stream. Pool "ours" has
 * {@code spec.autoscaling} at its defaults (1-10 replicas); pool "keda" has autoscaling off and a KEDA
 * {@code ScaledObject} on its {@code /scale} subresource (1-10 replicas, KEDA's defaults: pollingInterval 30 s, the
 * HPA's defaults behind it) with the redis-streams trigger on the consumer group's pending entries at its documented
 * default target, {@code pendingEntriesCount: 5} (= one replica's concurrency, so a replica is at target when all its
 * handlers are busy; a prefetch of 20 lets the pending entries show a backlog above that).
 *
 * <p>Each trace ({@link ArrivalTrace}) is replayed into both streams at once, order by order; then both sides are
 * watched until every order is done and both are back to 1 replica (or the tail limit passes). The next trace starts
 * once both are back at 1 replica (that wait is not measured). Printed per trace and
 * side: replica-seconds (pods that exist, sampled every 0.5 s, from the trace's start to the end of the tail, the
 * same window for both), p99 and max job wait (an order's enqueue to its handler's start: the receipt's entry time
 * less the 1 s of work), scale events (changes of the Deployment's replicas), jobs killed (deliveries a worker
 * left for redelivery when its shutdown grace ran out) and the machine's load; the KEDA version heads the output.
 *
 * <p>{@code bin/bench keda [traces] [scale] [tail-seconds]} (defaults {@code step,square-wave,diurnal,batch}, 1.0,
 * 330): it runs {@code bin/keda up} first. Not a test: it asserts nothing.
 */
public final class KedaComparisonBenchmark {
    private static final String REDIS = System.getenv().getOrDefault("BACKSTAGE_REDIS_URL", "redis://127.0.0.1:6379");
    static final int WORK_MS = 1000;
    private static final String JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC";
    /** The longest wait for both sides to come back to 1 replica between traces (KEDA's HPA holds for 300 s). */
    private static final Duration SETTLE_LIMIT = Duration.ofMinutes(8);

    private KedaComparisonBenchmark() {}

    public static void main(String[] args) throws Exception {
        List<ArrivalTrace> traces = ArrivalTrace.named(
                args.length > 0 ? args[0] : "step,square-wave,diurnal,batch",
                args.length > 1 ? Double.parseDouble(args[1]) : 1.0);
        Duration tailLimit = Duration.ofSeconds(args.length > 2 ? Long.parseLong(args[2]) : 330);
        String kedaVersion = System.getProperty("bench.keda.version", "not recorded");
        LocalCluster cluster = LocalCluster.shared();
        KubernetesClient client = cluster.client();
        String available = cluster.kubectl(
                        "get",
                        "apiservice",
                        "v1beta1.external.metrics.k8s.io",
                        "-o",
                        "jsonpath={.status.conditions[?(@.type==\"Available\")].status}")
                .out()
                .strip();
        if (!"True".equals(available)) {
            throw new IllegalStateException("KEDA's external metrics API is not available: run bin/keda up first");
        }
        cluster.kubectl(
                        "apply",
                        "--server-side",
                        "--force-conflicts",
                        "-f",
                        cluster.root().resolve("helm/backstage-operator/crds").toString())
                .orThrow();
        RealSandbox.installChart(cluster);
        String ns = UniqueNames.prefix("bench-keda");
        cluster.kubectl("create", "namespace", ns).orThrow();
        List<Side> sides = List.of(
                new Side("ours", UniqueNames.prefix("keda-ours")), new Side("keda", UniqueNames.prefix("keda-keda")));
        System.out.printf(
                "KEDA %s (operator and metrics API server built from the Go module proxy, bin/keda) against"
                        + " our operator (the chart's build); Kubernetes %s; load %s%n",
                kedaVersion, client.getKubernetesVersion().getGitVersion(), load());
        System.out.printf(
                "pools: concurrency 5, prefetch 20, %d ms per job, 2 jobs per order; 1-10 replicas each%n", WORK_MS);
        RedisClient redisClient = RedisClient.create(REDIS);
        ScheduledExecutorService sampling = Executors.newSingleThreadScheduledExecutor();
        List<TraceResult> results = new ArrayList<>();
        try (StatefulRedisConnection<String, String> redis = redisClient.connect();
                OrderFeed feed = new OrderFeed(REDIS, sides)) {
            for (Side side : sides) {
                cluster.kubectlWithInput(
                                SideManifests.of(side, REDIS, JVM_OPTIONS, WORK_MS), "apply", "-n", ns, "-f", "-")
                        .orThrow();
            }
            List<PoolSampler> samplers = sides.stream()
                    .map(s -> new PoolSampler(client, ns, s.pool()))
                    .toList();
            waitUntil(Duration.ofMinutes(5), "both pools at 1 ready replica", () -> {
                samplers.forEach(s -> s.sample(0));
                return samplers.stream().allMatch(s -> s.ready() == 1 && s.pods() == 1);
            });
            sampling.scheduleAtFixedRate(
                    () -> {
                        synchronized (samplers) {
                            samplers.forEach(s -> s.sample(PoolSampler.PERIOD_MS / 1000.0));
                        }
                    },
                    0,
                    PoolSampler.PERIOD_MS,
                    TimeUnit.MILLISECONDS);
            for (ArrivalTrace trace : traces) {
                if (!results.isEmpty()) {
                    // Each trace starts from 1 replica on both sides: wait out the previous one (not measured).
                    long settling = System.currentTimeMillis();
                    waitUntil(SETTLE_LIMIT, "both pools back at 1 replica before " + trace.name(), () -> {
                        synchronized (samplers) {
                            return samplers.stream().allMatch(s -> s.desired() <= 1 && s.pods() <= 1);
                        }
                    });
                    System.out.printf(
                            "%nboth sides back at 1 replica after %d s (not measured)%n",
                            (System.currentTimeMillis() - settling) / 1000);
                }
                results.add(run(trace, sides, samplers, feed, redis, cluster, ns, tailLimit));
            }
        } finally {
            sampling.shutdownNow();
            cluster.kubectl("delete", "namespace", ns, "--wait=true", "--timeout=180s");
            try (StatefulRedisConnection<String, String> redis = redisClient.connect()) {
                for (Side side : sides) {
                    List<String> keys = redis.sync().keys(side.prefix() + ":*");
                    if (!keys.isEmpty()) {
                        redis.sync().del(keys.toArray(String[]::new));
                    }
                }
            }
            redisClient.shutdown();
        }
        TraceResult.printTable(results, kedaVersion);
        // Threads of the node agent and the clients are not all daemons: exit, so bin/bench files the result.
        System.exit(0);
    }

    private static TraceResult run(
            ArrivalTrace trace,
            List<Side> sides,
            List<PoolSampler> samplers,
            OrderFeed feed,
            StatefulRedisConnection<String, String> redis,
            LocalCluster cluster,
            String ns,
            Duration tailLimit)
            throws InterruptedException {
        String loadBefore = load();
        int[] killedBefore = sides.stream()
                .mapToInt(s -> JobLedger.killed(cluster.node(), ns, s.pool()))
                .toArray();
        synchronized (samplers) {
            samplers.forEach(PoolSampler::reset);
        }
        System.out.printf("%n== %s (load %s)%n", trace.describe(), loadBefore);
        long start = System.currentTimeMillis();
        Thread progress = new Thread(() -> printProgress(samplers, start), "progress");
        progress.setDaemon(true);
        progress.start();
        feed.replay(trace, start);
        long arrivalsEnd = System.currentTimeMillis();
        long tailUntil = arrivalsEnd + tailLimit.toMillis();
        boolean settled = false;
        while (System.currentTimeMillis() < tailUntil && !settled) {
            Thread.sleep(PoolSampler.PERIOD_MS);
            synchronized (samplers) {
                settled = samplers.stream().allMatch(s -> s.desired() <= 1 && s.pods() <= 1)
                        && sides.stream()
                                .allMatch(s -> JobLedger.read(redis, s.prefix(), start, WORK_MS)
                                                .done()
                                        >= trace.orders());
            }
        }
        progress.interrupt();
        long end = System.currentTimeMillis();
        List<TraceResult.SideResult> rows = new ArrayList<>();
        synchronized (samplers) {
            for (int i = 0; i < sides.size(); i++) {
                Side side = sides.get(i);
                PoolSampler s = samplers.get(i);
                JobLedger ledger = JobLedger.read(redis, side.prefix(), start, WORK_MS);
                rows.add(new TraceResult.SideResult(
                        side.name(),
                        s.replicaSeconds(),
                        ledger.p99WaitMillis(),
                        ledger.maxWaitMillis(),
                        ledger.done(),
                        trace.orders(),
                        s.scaleEvents(),
                        s.maxPods(),
                        JobLedger.killed(cluster.node(), ns, side.pool()) - killedBefore[i],
                        s.startPods(),
                        s.pods()));
            }
        }
        TraceResult result = new TraceResult(trace, (end - start) / 1000.0, settled, loadBefore, load(), rows);
        result.print();
        return result;
    }

    private static void printProgress(List<PoolSampler> samplers, long start) {
        try {
            while (true) {
                Thread.sleep(10_000);
                StringBuilder line = new StringBuilder(
                        String.format(Locale.ROOT, "  t=%4d s", (System.currentTimeMillis() - start) / 1000));
                synchronized (samplers) {
                    for (PoolSampler s : samplers) {
                        line.append(String.format(
                                Locale.ROOT,
                                "  %s desired %2d pods %2d ready %2d",
                                s.pool().substring(0, Math.min(s.pool().length(), 9)),
                                s.desired(),
                                s.pods(),
                                s.ready()));
                    }
                }
                System.out.println(line.append("  load ").append(load()));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private interface Condition {
        boolean holds();
    }

    private static void waitUntil(Duration limit, String what, Condition condition) throws InterruptedException {
        long until = System.nanoTime() + limit.toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() > until) {
                throw new IllegalStateException("waited " + limit.toSeconds() + " s for " + what);
            }
            Thread.sleep(PoolSampler.PERIOD_MS);
        }
    }

    static String load() {
        return String.format(
                Locale.ROOT,
                "%.1f",
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
}
