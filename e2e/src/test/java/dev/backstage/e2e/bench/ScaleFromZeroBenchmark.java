package dev.backstage.e2e.bench;

import dev.backstage.e2e.cluster.LocalCluster;
import dev.backstage.e2e.sandbox.RealSandbox;
import dev.backstage.examples.orders.Order;
import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.core.CapabilitySet;
import dev.backstage.runtime.core.JobProducer;
import dev.backstage.runtime.core.PayloadCodec;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Scale from zero on the real local cluster: the time from the first job enqueued on an idle autoscaled pool at 0
 * replicas to that job finished, broken into detection (enqueue to the Deployment asking for a replica: the
 * operator's backlog poll), pod scheduling (to the node agent starting the pod's JVM: ReplicaSet controller, pod
 * binding), JVM start (to the runtime main's first log line, "task modules: ..."), runtime ready (to "worker ... starting": broker
 * connections, consumers) and the job (to the broker's entry of the job's chained receipt). Two pools side by side in
 * one run, rounds interleaved: "before" polls at zero every pollInterval (zeroPollInterval = pollInterval = 5s),
 * "after" with the default zeroPollInterval (1s). Also prints the bare JVM start of the runtime image (this node's
 * runtime JVM with the same class path, to its exit on a missing config file) and the target: first job done within
 * 2x the bare JVM start plus one poll. Prints the machine's load before and after each round.
 *
 * <p>{@code bin/bench scale-from-zero [rounds]} (default 3), on the control plane of {@code bin/control-plane}.
 */
public final class ScaleFromZeroBenchmark {
    private static final String REDIS = System.getenv().getOrDefault("BACKSTAGE_REDIS_URL", "redis://127.0.0.1:6379");
    private static final Duration STEP = Duration.ofMillis(20);
    /** The workers' JVM options (the pool's JAVA_TOOL_OPTIONS), the same for the bare JVM start. */
    private static final String JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC";

    private record Variant(String name, String zeroPollInterval, String prefix) {}

    private ScaleFromZeroBenchmark() {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        LocalCluster cluster = LocalCluster.shared();
        KubernetesClient client = cluster.client();
        // helm installs crds/ only on the first install: a cluster kept from an earlier build gets this build's CRDs.
        cluster.kubectl(
                        "apply",
                        "--server-side",
                        "--force-conflicts",
                        "-f",
                        cluster.root().resolve("helm/backstage-operator/crds").toString())
                .orThrow();
        RealSandbox.installChart(cluster);
        String ns = UniqueNames.prefix("bench-zero");
        cluster.kubectl("create", "namespace", ns).orThrow();
        List<Variant> variants = List.of(
                new Variant("before", "5s", UniqueNames.prefix("zero-before")),
                new Variant("after", "1s", UniqueNames.prefix("zero-after")));
        RedisClient redisClient = RedisClient.create(REDIS);
        try (StatefulRedisConnection<String, String> redis = redisClient.connect()) {
            for (Variant v : variants) {
                cluster.kubectlWithInput(manifests(v), "apply", "-n", ns, "-f", "-")
                        .orThrow();
            }
            long bare = bareJvmStartMillis();
            System.out.printf(
                    "bare JVM start of the runtime image (same class path, to exit on a missing config): %d ms%n",
                    bare);
            Map<String, List<long[]>> results = new LinkedHashMap<>();
            for (int round = 1; round <= rounds; round++) {
                for (Variant v : variants) {
                    long[] phases = round(cluster, client, redis, ns, v, round);
                    results.computeIfAbsent(v.name(), k -> new ArrayList<>()).add(phases);
                }
            }
            System.out.println();
            System.out.println(
                    "variant  zeroPoll  detection  scheduling  jvm-start  runtime-ready  job  total   (medians, ms)");
            for (Variant v : variants) {
                List<long[]> rows = results.get(v.name());
                long[] median = new long[6];
                for (int i = 0; i < 6; i++) {
                    int col = i;
                    median[i] = rows.stream().mapToLong(r -> r[col]).sorted().toArray()[rows.size() / 2];
                }
                long poll = Duration.parse("PT" + v.zeroPollInterval().toUpperCase())
                        .toMillis();
                System.out.printf(
                        "%-8s %-9s %9d %11d %10d %14d %4d %6d   target 2 x %d + %d = %d ms: %s%n",
                        v.name(),
                        v.zeroPollInterval(),
                        median[0],
                        median[1],
                        median[2],
                        median[3],
                        median[4],
                        median[5],
                        bare,
                        poll,
                        2 * bare + poll,
                        median[5] <= 2 * bare + poll ? "met" : "not met");
            }
        } finally {
            cluster.kubectl("delete", "namespace", ns, "--wait=true", "--timeout=120s");
            try (StatefulRedisConnection<String, String> redis = redisClient.connect()) {
                for (Variant v : variants) {
                    List<String> keys = redis.sync().keys(v.prefix() + ":*");
                    if (!keys.isEmpty()) {
                        redis.sync().del(keys.toArray(String[]::new));
                    }
                }
            }
            redisClient.shutdown(); // the node agent stops with this JVM (LocalCluster.shared's hook)
        }
        // Threads of the node agent and the clients are not all daemons: exit, so bin/bench files the result.
        System.exit(0);
    }

    /** One measurement: {detection, scheduling, jvm start, runtime ready, job, total} in ms. */
    private static long[] round(
            LocalCluster cluster,
            KubernetesClient client,
            StatefulRedisConnection<String, String> redis,
            String ns,
            Variant v,
            int round)
            throws Exception {
        String pool = "zero-" + v.name();
        waitFor(
                Duration.ofMinutes(5),
                "pool " + pool + " idle at zero",
                () -> replicas(client, ns, pool) == 0
                                && pods(client, ns, pool).isEmpty()
                                && desiredZero(client, ns, pool)
                        ? 1
                        : 0);
        double loadBefore = load();
        String stream = v.prefix() + ":default";
        long t0;
        try (Provider p = Providers.create(new ProviderSettings("redis", REDIS, v.prefix(), "workers", null))) {
            JobProducer producer = new JobProducer(new CapabilitySet(p, null, null, null), PayloadCodec.defaults());
            t0 = System.currentTimeMillis();
            producer.enqueue("processOrder", new Order("first-" + round, round, "visa"), EnqueueOptions.defaults());
        }
        long detected = waitFor(
                Duration.ofMinutes(2),
                "the Deployment to ask for a replica",
                () -> replicas(client, ns, pool) > 0 ? System.currentTimeMillis() : 0);
        String podName = waitForPod(client, ns, pool);
        Path log = cluster.node().podDir(ns, podName).resolve("pod.log");
        long launched = waitFor(
                Duration.ofMinutes(2), "the pod's JVM", () -> Files.exists(log) ? System.currentTimeMillis() : 0);
        // The runtime main's first line (the JVM's own "Picked up JAVA_TOOL_OPTIONS" comes before any class loads).
        long firstLine = waitFor(
                Duration.ofMinutes(2),
                "the runtime's first log line",
                () -> contains(log, "task modules:") ? System.currentTimeMillis() : 0);
        long ready = waitFor(
                Duration.ofMinutes(2),
                "the runtime to start consuming",
                () -> contains(log, "starting: queues") ? System.currentTimeMillis() : 0);
        long done = waitFor(
                Duration.ofMinutes(2), "the job's receipt", () -> receiptMillis(redis, stream, "first-" + round));
        long[] phases = {
            detected - t0,
            launched - detected,
            firstLine - launched,
            ready - firstLine,
            Math.max(0, done - ready),
            done - t0
        };
        System.out.printf(
                "round %d %-6s detection %5d  scheduling %5d  jvm-start %5d  runtime-ready %5d  job %5d  total %6d ms"
                        + "  (load %.1f -> %.1f)%n",
                round, v.name(), phases[0], phases[1], phases[2], phases[3], phases[4], phases[5], loadBefore, load());
        return phases;
    }

    private static long bareJvmStartMillis() throws Exception {
        List<Long> runs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            // As the node agent starts a pod limited to 1 CPU and 512Mi, with the pool's JAVA_TOOL_OPTIONS.
            ProcessBuilder builder = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            "-XX:MaxRAM=536870912",
                            "-XX:ActiveProcessorCount=1",
                            "-cp",
                            System.getProperty("java.class.path"),
                            "dev.backstage.runtime.main.RuntimeMain")
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD);
            builder.environment().clear();
            builder.environment().put("BACKSTAGE_CONFIG", "/nonexistent/runtime.yaml");
            builder.environment().put("JAVA_TOOL_OPTIONS", JVM_OPTIONS);
            long start = System.nanoTime();
            Process process = builder.start();
            if (!process.waitFor(5, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IllegalStateException("the runtime JVM did not exit on a missing config in 5 minutes");
            }
            runs.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        }
        System.out.println("bare JVM start runs (ms): " + runs);
        return runs.stream().sorted().toList().get(1);
    }

    private static String waitForPod(KubernetesClient client, String ns, String pool) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (System.nanoTime() < until) {
            List<Pod> pods = pods(client, ns, pool);
            if (!pods.isEmpty()) {
                return pods.get(0).getMetadata().getName();
            }
            Thread.sleep(STEP.toMillis());
        }
        throw new IllegalStateException("no pod of " + pool + " within 2 minutes");
    }

    /** Polls {@code probe} every {@link #STEP} until it returns non-zero (a time in ms); fails after {@code limit}. */
    private static long waitFor(Duration limit, String what, LongSupplier probe) throws InterruptedException {
        long until = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < until) {
            long value = probe.getAsLong();
            if (value != 0) {
                return value;
            }
            Thread.sleep(STEP.toMillis());
        }
        throw new IllegalStateException("waited " + limit.toSeconds() + " s for " + what);
    }

    private static int replicas(KubernetesClient client, String ns, String name) {
        Deployment d =
                client.apps().deployments().inNamespace(ns).withName(name).get();
        return d == null || d.getSpec().getReplicas() == null ? -1 : d.getSpec().getReplicas();
    }

    private static boolean desiredZero(KubernetesClient client, String ns, String name) {
        var pool = client.resources(dev.backstage.operator.model.BackstageWorkerPool.class)
                .inNamespace(ns)
                .withName(name)
                .get();
        return pool != null
                && pool.getStatus() != null
                && Integer.valueOf(0).equals(pool.getStatus().getDesiredReplicas());
    }

    private static List<Pod> pods(KubernetesClient client, String ns, String pool) {
        return client.pods()
                .inNamespace(ns)
                .withLabel("app.kubernetes.io/instance", pool)
                .list()
                .getItems();
    }

    private static boolean contains(Path file, String text) {
        try {
            return Files.exists(file) && Files.readString(file).contains(text);
        } catch (IOException e) {
            return false;
        }
    }

    /** The broker's time (ms, from the entry id) of the receipt the job chained, or 0 while there is none. */
    private static long receiptMillis(StatefulRedisConnection<String, String> redis, String stream, String orderId) {
        for (StreamMessage<String, String> m : redis.sync().xrange(stream, Range.create("-", "+"))) {
            String payload = m.getBody().getOrDefault("payload", "");
            if ("sendReceipt".equals(m.getBody().get("taskName")) && payload.contains("\"" + orderId + "\"")) {
                return Long.parseLong(m.getId().substring(0, m.getId().indexOf('-')));
            }
        }
        return 0;
    }

    private static double load() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static String manifests(Variant v) {
        String name = "zero-" + v.name();
        return """
                apiVersion: v1
                kind: Secret
                metadata: {name: %1$s-redis}
                stringData: {url: "%2$s"}
                ---
                apiVersion: backstage.dev/v1alpha1
                kind: BackstageTopology
                metadata: {name: %1$s}
                spec:
                  provider: redis
                  connection: {secretName: %1$s-redis, key: url}
                  keyPrefix: %3$s
                  consumerGroup: workers
                  queues: [{name: default}]
                ---
                apiVersion: backstage.dev/v1alpha1
                kind: BackstageWorkerPool
                metadata: {name: %1$s}
                spec:
                  image: backstage-sample-tasks:0.1.0
                  topologyRef: {name: %1$s}
                  queues: [default]
                  concurrency: 4
                  shutdownGracePeriod: 5s
                  resources: {limits: {cpu: "1", memory: 512Mi}}
                  env: [{name: BACKSTAGE_SAMPLE_WORK_MS, value: "5"},
                        {name: JAVA_TOOL_OPTIONS, value: "%5$s"}]
                  autoscaling:
                    enabled: true
                    minReplicas: 0
                    maxReplicas: 1
                    pollInterval: 5s
                    zeroPollInterval: %4$s
                    scaleDownWindow: 5s
                    scaleDownInterval: 5s
                """.formatted(name, REDIS, v.prefix(), v.zeroPollInterval(), JVM_OPTIONS);
    }
}
