package dev.backstage.operator.bench;

import dev.backstage.operator.model.AutoscalingSpec;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.Conditions;
import dev.backstage.operator.model.DeletionPolicy;
import dev.backstage.operator.testing.BackstageFixtures;
import dev.backstage.operator.testing.RealApiServer;
import dev.backstage.testsupport.ControlPlane;
import dev.backstage.testsupport.TestCertificates;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The operator at scale, on the real API server of {@code bin/control-plane}: N BackstageTopologies (Redis) and N
 * autoscaled BackstageWorkerPools (minReplicas 0, so an empty queue makes a pool Ready at zero replicas without
 * pods; no node agent runs here), created at once against the operator as users run it.
 *
 * <p>The operator is its packaged build ({@code operator/target/operator-*.jar} and {@code target/lib/*}, what the
 * image holds) in a JVM of its own, started with the chart's defaults: its {@code JAVA_TOOL_OPTIONS}
 * ({@code -XX:MaxRAMPercentage=50 -XX:+ExitOnOutOfMemoryError}, log level info) and its container limits emulated
 * ({@code -XX:MaxRAM=512m} for the 512Mi memory limit, {@code -XX:ActiveProcessorCount=1} for the 1-CPU limit; the
 * JVM then sizes its heap and GC as in the pod), leader election on, watching all namespaces, and the admission
 * webhook in the path: a ValidatingWebhookConfiguration as the chart's (CREATE/UPDATE of both kinds,
 * failurePolicy Fail) whose clientConfig is the operator's HTTPS URL with its CA bundle, instead of a Service.
 *
 * <p>One operator process serves every round; round 1 meets it cold (printed as warm-up). Each round, in a fresh
 * namespace: set-up (namespace, Secret, watches; not timed), then the timed window from the first create to every
 * pool's {@code Ready=True} in its status, then settling, then an idle window with every pool polling its backlog.
 * Printed per round: the time to all Ready, API requests per pool from the API server's own
 * {@code apiserver_request_total} (diffed by verb and resource; it counts every client: the operator, this driver's
 * creates and watches, and kube-controller-manager), the operator's heap used (its /metrics) and RSS
 * (/proc/PID/status) after settling and after a forced GC, its CPU in cores over the idle window (/proc/PID/stat),
 * its threads and Redis connections, and the machine's load. The round's namespace is then deleted (the operator
 * removes its finalizers) and its Redis keys too.
 *
 * <p>Baselines: the same creates (the same objects, the same {@value #CREATE_THREADS} threads of the same fabric8
 * client, the same driver watches) are made, in namespaces of their own, with the API server alone (the namespace does
 * not match the webhook's selector, no reconciler watches it) and with the admission webhook only; the sides run in
 * each round, their order rotated every round. With a baseline side, the operator watches only the operator side's
 * namespaces ({@code WATCH_NAMESPACES}, named up front) instead of all. Printed per side: creates/s, the API server's
 * own time per create (its {@code apiserver_request_duration_seconds}), the webhook's and etcd's part of it, etcd's
 * WAL fsyncs, and the CPU of kube-apiserver, etcd, kube-controller-manager, the operator and this driver (from /proc;
 * the control plane's pids from {@code BACKSTAGE_CLUSTER_DIR/run}).
 *
 * <p>Args: {@code [pools=1000] [rounds=3] [idleSeconds=60] [warmups=1] [settleSeconds=30]
 * [sides=apiserver,webhook,operator]}. Environment
 * variable {@code BENCH_OPERATOR_JVM_OPTS}: extra JVM options for the operator (e.g. a JFR recording).
 */
public final class OperatorScaleBenchmark {
    private static final Duration READY_DEADLINE = Duration.ofMinutes(15);
    private static final Duration GONE_DEADLINE = Duration.ofMinutes(15);
    private static final String BENCH_LABEL = "backstage.dev/bench";
    private static final String REDIS_URL = "redis://127.0.0.1:6379";
    private static final int CREATE_THREADS = 8;
    /** The operator's ServiceAccount in the system namespace (the chart's name). */
    private static final String OPERATOR_ACCOUNT = "backstage-operator";
    /** The chart's javaToolOptions with its default logLevel (values.yaml). */
    private static final String CHART_JAVA_TOOL_OPTIONS =
            "-XX:MaxRAMPercentage=50 -XX:+ExitOnOutOfMemoryError -Dorg.slf4j.simpleLogger.defaultLogLevel=info";
    /** The chart's container limits (values.yaml resources.limits: memory 512Mi, cpu 1) as the JVM sees them. */
    private static final List<String> CONTAINER_LIMITS = List.of("-XX:MaxRAM=512m", "-XX:ActiveProcessorCount=1");

    private final int pools;
    private final int idleSeconds;
    private final int settleSeconds;
    private final List<Side> sides;
    /** kube-apiserver, etcd and kube-controller-manager by name, from bin/control-plane's pid files. */
    private final Map<String, Long> controlPlanePids;

    private final RealApiServer api;
    private final KubernetesClient client;
    private final HttpClient http = HttpClient.newHttpClient();
    private final String runId =
            UniqueNames.prefix("bs15scale").toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
    private OperatorProcess operator;
    private String systemNamespace;
    /** The round's namespace until it is deleted: a failed run deletes it before stopping the operator. */
    private volatile String activeNamespace;

    private final java.util.concurrent.atomic.AtomicInteger createRetries =
            new java.util.concurrent.atomic.AtomicInteger();

    private OperatorScaleBenchmark(int pools, int idleSeconds, int settleSeconds, List<Side> sides) {
        this.pools = pools;
        this.idleSeconds = idleSeconds;
        this.settleSeconds = settleSeconds;
        this.sides = sides;
        this.controlPlanePids = controlPlanePids();
        this.api = RealApiServer.shared();
        this.client = api.client();
    }

    public static void main(String[] args) throws Exception {
        int pools = arg(args, 0, 1000);
        int rounds = arg(args, 1, 3);
        int idle = arg(args, 2, 60);
        int warmups = arg(args, 3, 1);
        int settle = arg(args, 4, 30);
        List<Side> sides = Side.parse(args.length > 5 ? args[5] : "apiserver,webhook,operator");
        OperatorScaleBenchmark bench = new OperatorScaleBenchmark(pools, idle, settle, sides);
        int exit = 0;
        try {
            bench.run(warmups, rounds);
        } catch (Exception | Error e) {
            e.printStackTrace();
            exit = 1;
        } finally {
            bench.tearDown();
        }
        System.exit(exit);
    }

    private void run(int warmups, int rounds) throws Exception {
        long setupStart = System.nanoTime();
        String system = api.namespace("backstage-system");
        systemNamespace = system;
        ControlPlane cp = api.controlPlane();
        // Each side of each round has its own namespace, named up front: with baseline sides the operator watches
        // only the operator side's namespaces (WATCH_NAMESPACES), so that no reconciler sees a baseline's objects.
        Map<String, String> namespaces = new TreeMap<>();
        for (int r = 1; r <= warmups + rounds; r++) {
            for (Side side : sides) {
                namespaces.put(
                        r + " " + side.key,
                        UniqueNames.prefix("scale-" + side.key + "-" + r)
                                .toLowerCase(Locale.ROOT)
                                .replaceAll("[^a-z0-9-]", "-"));
            }
        }
        boolean baselines = sides.stream().anyMatch(s -> s != Side.OPERATOR);
        // Without an operator side, the operator (there for its webhook) watches only its own namespace, where no
        // pool or topology is created: an empty WATCH_NAMESPACES would mean all namespaces.
        String watchNamespaces = !baselines
                ? ""
                : !sides.contains(Side.OPERATOR)
                        ? system
                        : namespaces.entrySet().stream()
                                .filter(e -> e.getKey().endsWith(" " + Side.OPERATOR.key))
                                .map(Map.Entry::getValue)
                                .collect(Collectors.joining(","));
        System.out.println("sides, rotated every round:");
        for (Side side : sides) {
            System.out.println("  " + side.key + ": " + side.description);
        }
        if (sides.contains(Side.WEBHOOK) || sides.contains(Side.OPERATOR)) {
            Path work = Files.createDirectories(cp.root().resolve("operator/target/operator-scale-bench"));
            TestCertificates certificates = TestCertificates.generate();
            Path tls = Files.createDirectories(work.resolve("webhook-tls"));
            Files.copy(
                    certificates.certificate("server"),
                    tls.resolve("tls.crt"),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            Files.copy(
                    certificates.key("server"),
                    tls.resolve("tls.key"),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            int webhookPort = freePort();
            registerWebhook(webhookPort, Files.readAllBytes(certificates.ca()));
            Path kubeconfig = podCredentials(cp, work, system);
            operator = OperatorProcess.start(cp, work, kubeconfig, system, webhookPort, tls, watchNamespaces);
            System.out.printf(
                    "operator: %s, pid %d, %s%n  JAVA_TOOL_OPTIONS=%s%n  credentials: ServiceAccount %s/%s"
                            + " token (as in its pod), bound to ClusterRole cluster-admin%n  WATCH_NAMESPACES=%s%n  log %s%n",
                    operator.jar(),
                    operator.pid(),
                    String.join(" ", operator.jvmOptions()),
                    CHART_JAVA_TOOL_OPTIONS,
                    system,
                    OPERATOR_ACCOUNT,
                    watchNamespaces.isEmpty()
                            ? "(all namespaces, the chart's default)"
                            : watchNamespaces + " (no baseline's namespace: the baselines' objects are not reconciled)",
                    operator.log());
            operator.awaitLeading(client, http);
        }
        System.out.printf(
                "set-up (not timed): %.1f s (namespace, certificates, webhook registration, operator start "
                        + "until it holds its Lease and /readyz answers 200)%n",
                seconds(System.nanoTime() - setupStart));
        System.out.println("kube-controller-manager's client rate limit: "
                + controllerManagerRate(controlPlanePids.get("kube-controller-manager"))
                + " (BACKSTAGE_KCM_API_QPS of bin/control-plane up; the figures in docs/benchmarks.md need 200)");
        System.out.printf(
                "%d pools + %d topologies (Redis %s) per round and side, created by %d threads of one fabric8 "
                        + "client (JDK HttpClient, HTTP/2; no client-side rate limit); %d warm-up + %d measured rounds, idle "
                        + "window %d s after %d s settling; control plane pids %s; %d cores, load %s%n%n",
                pools,
                pools,
                REDIS_URL,
                CREATE_THREADS,
                warmups,
                rounds,
                idleSeconds,
                settleSeconds,
                controlPlanePids,
                Runtime.getRuntime().availableProcessors(),
                load());

        List<RoundResult> results = new ArrayList<>();
        Map<Side, List<Window>> creates = new java.util.EnumMap<>(Side.class);
        for (int r = 1; r <= warmups + rounds; r++) {
            boolean warmup = r <= warmups;
            String label = warmup ? "warm-up " + r : "round " + (r - warmups);
            for (int i = 0; i < sides.size(); i++) {
                Side side = sides.get((i + r - 1) % sides.size());
                String ns = namespaces.get(r + " " + side.key);
                Window window;
                if (side == Side.OPERATOR) {
                    RoundResult result = round(label + " " + side.key, ns);
                    window = result.creates();
                    if (!warmup) {
                        results.add(result);
                    }
                } else {
                    window = baseline(label + " " + side.key, side, ns);
                }
                if (!warmup) {
                    creates.computeIfAbsent(side, k -> new ArrayList<>()).add(window);
                }
            }
        }
        summary(results);
        createSummary(creates);
    }

    /** What runs beside the API server while the driver creates a side's objects. */
    enum Side {
        APISERVER(
                "apiserver",
                "the API server alone: the same creates, no admission webhook (the namespace does not "
                        + "match its selector), no reconciler watching the namespace"),
        WEBHOOK(
                "webhook",
                "the API server + the operator's admission webhook (the same process, idle otherwise), no "
                        + "reconciler watching the namespace"),
        OPERATOR("operator", "the API server + webhook + the operator's reconcilers: timed until every pool is Ready");

        final String key;
        final String description;

        Side(String key, String description) {
            this.key = key;
            this.description = description;
        }

        /** The namespace label value: the webhook's namespaceSelector matches {@code operator-scale} only. */
        String namespaceLabel() {
            return this == APISERVER ? "operator-scale-no-webhook" : "operator-scale";
        }

        static List<Side> parse(String csv) {
            List<Side> sides = new ArrayList<>();
            for (String key : csv.split(",")) {
                Side side = java.util.Arrays.stream(values())
                        .filter(s -> s.key.equals(key.trim()))
                        .findFirst()
                        .orElseThrow(() -> new IllegalArgumentException("unknown side '" + key.trim()
                                + "': the 6th argument is a comma-separated list of apiserver, webhook, operator"));
                if (!sides.contains(side)) {
                    sides.add(side);
                }
            }
            return sides;
        }
    }

    /** A baseline side: the same set-up and creates as the operator side, timed until the creates have returned. */
    private Window baseline(String label, Side side, String ns) throws Exception {
        Round round = prepare(label, side, ns);
        Snapshot before = snapshot();
        createAll(round);
        Snapshot created = snapshot();
        // The same watches as the operator side, which must see every object (a watch event each, as there).
        long deadline = System.nanoTime() + READY_DEADLINE.toNanos();
        while (round.poolsReady().seen() < pools || round.topologiesReady().seen() < pools) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(label + ": the driver's watches saw only "
                        + round.poolsReady().seen() + " pools and "
                        + round.topologiesReady().seen() + " topologies after " + READY_DEADLINE);
            }
            round.poolsReady().awaitChange(Duration.ofMillis(200));
        }
        round.close();
        Window window = new Window(before, created, pools);
        System.out.printf(
                "  %s: %d creates returned in %.1f s = %.1f creates/s%n",
                label, 2 * pools, window.seconds(), window.createsPerSecond());
        window.print();
        long cleanStart = System.nanoTime();
        deleteNamespace(ns);
        activeNamespace = null;
        System.out.printf(
                "    clean-up (not timed): namespace deleted in %.1f s%n%n", seconds(System.nanoTime() - cleanStart));
        return window;
    }

    /** A side's set-up, not timed: namespace, Secret, objects built, the driver's watches, the create threads. */
    private record Round(
            String ns,
            String keyPrefix,
            List<BackstageTopology> topologies,
            List<BackstageWorkerPool> pools,
            ReadyWatch<BackstageWorkerPool> poolsReady,
            ReadyWatch<BackstageTopology> topologiesReady,
            ExecutorService creators) {
        void close() {
            creators.shutdown();
            poolsReady.close();
            topologiesReady.close();
        }
    }

    private Round prepare(String label, Side side, String ns) {
        long setupStart = System.nanoTime();
        client.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(ns)
                        .addToLabels(BENCH_LABEL, side.namespaceLabel())
                        .endMetadata()
                        .build())
                .create();
        client.secrets()
                .inNamespace(ns)
                .resource(new SecretBuilder()
                        .withNewMetadata()
                        .withName("redis")
                        .endMetadata()
                        .addToStringData("url", REDIS_URL)
                        .build())
                .create();
        activeNamespace = ns;
        String keyPrefix = runId + "-" + ns.substring(ns.length() - 6);
        List<BackstageTopology> topologies = new ArrayList<>();
        List<BackstageWorkerPool> poolObjects = new ArrayList<>();
        for (int i = 0; i < pools; i++) {
            topologies.add(topology(ns, "t" + i, keyPrefix + "-" + i));
            poolObjects.add(pool(ns, "p" + i, "t" + i));
        }
        ReadyWatch<BackstageWorkerPool> poolsReady = new ReadyWatch<>(
                client.resources(BackstageWorkerPool.class).inNamespace(ns).inform(),
                p -> p.getStatus() == null ? null : p.getStatus().getConditions());
        ReadyWatch<BackstageTopology> topologiesReady = new ReadyWatch<>(
                client.resources(BackstageTopology.class).inNamespace(ns).inform(),
                t -> t.getStatus() == null ? null : t.getStatus().getConditions());
        ExecutorService creators = Executors.newFixedThreadPool(CREATE_THREADS);
        System.out.printf(
                "%s: namespace %s (set-up %.1f s, not timed; load %s)%n",
                label, ns, seconds(System.nanoTime() - setupStart), load());
        return new Round(ns, keyPrefix, topologies, poolObjects, poolsReady, topologiesReady, creators);
    }

    /** The timed creates: each thread creates a topology, then its pool; returns when every create has returned. */
    private void createAll(Round round) throws Exception {
        List<Future<?>> creates = new ArrayList<>();
        for (int i = 0; i < pools; i++) {
            BackstageTopology topology = round.topologies().get(i);
            BackstageWorkerPool pool = round.pools().get(i);
            creates.add(round.creators().submit(() -> {
                create(topology);
                create(pool);
                return null;
            }));
        }
        for (Future<?> f : creates) {
            f.get();
        }
        int retried = createRetries.getAndSet(0);
        if (retried > 0) {
            System.out.printf(
                    "    note: %d creates failed (e.g. the admission webhook did not answer within its 10 s "
                            + "timeout) and were sent again%n",
                    retried);
        }
    }

    private RoundResult round(String label, String ns) throws Exception {
        Round round = prepare(label, Side.OPERATOR, ns);
        ReadyWatch<BackstageWorkerPool> poolsReady = round.poolsReady();
        ReadyWatch<BackstageTopology> topologiesReady = round.topologiesReady();
        String keyPrefix = round.keyPrefix();
        double topologyReconcilesBefore = operator.reconciles(http, "BackstageTopology");
        double poolReconcilesBefore = operator.reconciles(http, "BackstageWorkerPool");
        Snapshot before = snapshot();
        String loadBefore = before.load();

        // --- timed: first create -> all pools Ready ---
        long start = before.nanos();
        createAll(round);
        Snapshot createdSnapshot = snapshot();
        long created = createdSnapshot.nanos();
        long lastReport = created;
        while (poolsReady.count() < pools) {
            if (System.nanoTime() - start > READY_DEADLINE.toNanos()) {
                throw new IllegalStateException(label + ": only " + poolsReady.count() + " of " + pools
                        + " pools Ready after " + READY_DEADLINE + " (operator log: " + operator.log() + ")");
            }
            if (!operator.alive()) {
                throw new IllegalStateException("the operator exited (log: " + operator.log() + ")");
            }
            if (System.nanoTime() - lastReport > TimeUnit.SECONDS.toNanos(10)) {
                lastReport = System.nanoTime();
                System.out.printf(
                        "    %.0f s: topologies Ready %d, pools Ready %d of %d (load %s)%n",
                        seconds(lastReport - start), topologiesReady.count(), poolsReady.count(), pools, load());
            }
            poolsReady.awaitChange(Duration.ofMillis(200));
        }
        Snapshot readySnapshot = snapshot();
        long ready = readySnapshot.nanos();
        String loadAfter = readySnapshot.load();
        round.creators().shutdown();
        System.out.printf(
                "    reconciles started in the timed window, per object: topology %.2f, pool %.2f (the operator's"
                        + " operator_sdk_reconciliations_started_total)%n",
                (operator.reconciles(http, "BackstageTopology") - topologyReconcilesBefore) / pools,
                (operator.reconciles(http, "BackstageWorkerPool") - poolReconcilesBefore) / pools);

        // --- settle, then the idle window with every pool polling ---
        sleepSeconds(settleSeconds);
        Memory settled = operator.memory(http);
        Map<String, Double> idleApiBefore = apiRequests(apiMetrics());
        Map<String, Long> threadsBefore = operator.threadTicks();
        long cpuBefore = operator.cpuTicks();
        long idleStart = System.nanoTime();
        String idleLoadBefore = load();
        sleepSeconds(idleSeconds);
        long cpuAfter = operator.cpuTicks();
        Map<String, Long> threadsAfter = operator.threadTicks();
        double idleElapsed = seconds(System.nanoTime() - idleStart);
        Map<String, Double> idleApiAfter = apiRequests(apiMetrics());
        String idleLoadAfter = load();
        int threads = (int) operator.metric(http, "jvm_threads_live_threads");
        int redisConnections = operator.connectionsToPort(6379);
        operator.forceGc();
        Memory afterGc = operator.memory(http);
        int notReady = pools - poolsReady.count();

        RoundResult result = new RoundResult(
                seconds(created - start),
                seconds(topologiesReady.lastReadyAt() - start),
                seconds(ready - start),
                diff(apiRequests(before.apiMetrics()), apiRequests(readySnapshot.apiMetrics())),
                diff(idleApiBefore, idleApiAfter),
                idleElapsed,
                (cpuAfter - cpuBefore) / 100.0 / idleElapsed,
                settled,
                afterGc,
                threads,
                redisConnections,
                loadBefore + " -> " + loadAfter,
                idleLoadBefore + " -> " + idleLoadAfter,
                new Window(before, createdSnapshot, pools));
        result.print(label, pools);
        System.out.printf(
                "    the creates (first create -> all returned, %.1f creates/s):%n",
                result.creates().createsPerSecond());
        result.creates().print();
        System.out.printf(
                "    the operator catching up (creates returned -> all pools Ready, %.1f s):%n",
                seconds(ready - created));
        new Window(createdSnapshot, readySnapshot, pools).print();
        System.out.println(
                "      idle CPU by thread group (cores): " + threadCpu(threadsBefore, threadsAfter, idleElapsed));
        if (notReady > 0) {
            System.out.printf("    note: %d pools left Ready during the idle window%n", notReady);
        }
        round.close();

        // --- clean-up, not timed ---
        long cleanStart = System.nanoTime();
        deleteNamespace(ns);
        activeNamespace = null;
        long keys = deleteRedisKeys(keyPrefix + "-*");
        System.out.printf(
                "    clean-up (not timed): namespace deleted in %.1f s, %d Redis keys deleted%n%n",
                seconds(System.nanoTime() - cleanStart), keys);
        return result;
    }

    private void summary(List<RoundResult> results) {
        if (results.isEmpty()) {
            return;
        }
        System.out.printf("summary over %d measured rounds: median [min - max]%n", results.size());
        line("time to all %d pools Ready (s)".formatted(pools), results, RoundResult::readySeconds, "%.1f");
        line("  of which creates returned (s)", results, RoundResult::createSeconds, "%.1f");
        line("  creates/s", results, r -> r.creates().createsPerSecond(), "%.1f");
        line("API requests per pool (all clients)", results, r -> r.apiTotal() / pools, "%.1f");
        line(
                "operator heap used after settling (MiB)",
                results,
                r -> r.settled().heapMiB(),
                "%.0f");
        line("operator heap after a full GC (MiB)", results, r -> r.afterGc().heapMiB(), "%.0f");
        line("operator heap max (MiB)", results, r -> r.settled().heapMaxMiB(), "%.0f");
        line("operator RSS after settling (MiB)", results, r -> r.settled().rssMiB(), "%.0f");
        line(
                "operator RSS after the idle window (MiB)",
                results,
                r -> r.afterGc().rssMiB(),
                "%.0f");
        line("operator idle CPU (cores)", results, RoundResult::idleCores, "%.3f");
        line("API requests/s while idle (all clients)", results, r -> r.idleApiTotal() / r.idleSeconds(), "%.1f");
        line("operator threads", results, r -> (double) r.threads(), "%.0f");
        line("operator connections to Redis", results, r -> (double) r.redisConnections(), "%.0f");
        System.out.println("load per round (timed window; idle window): "
                + results.stream().map(r -> r.load() + "; " + r.idleLoad()).collect(Collectors.joining(" | ")));
        System.out.println("targets: all Ready < 60 s, heap and RSS < 512 MiB, idle CPU < 0.2 core");
    }

    private static void line(
            String name, List<RoundResult> results, ToDoubleFunction<RoundResult> value, String format) {
        double[] v = results.stream().mapToDouble(value).sorted().toArray();
        System.out.printf(
                "  %-44s %s [%s - %s]%n",
                name, format.formatted(median(v)), format.formatted(v[0]), format.formatted(v[v.length - 1]));
    }

    private static BackstageTopology topology(String ns, String name, String keyPrefix) {
        BackstageTopology topology = BackstageFixtures.redisTopology(ns, name, "jobs");
        topology.getSpec().setConnection(new dev.backstage.operator.model.SecretKeyReference("redis", "url"));
        topology.getSpec().setKeyPrefix(keyPrefix);
        topology.getSpec().setDeletionPolicy(DeletionPolicy.DELETE);
        return topology;
    }

    private static BackstageWorkerPool pool(String ns, String name, String topology) {
        BackstageWorkerPool pool = BackstageFixtures.pool(ns, name, topology, "jobs");
        pool.getSpec().setReplicas(null);
        AutoscalingSpec autoscaling = new AutoscalingSpec();
        autoscaling.setEnabled(true);
        autoscaling.setMinReplicas(0);
        autoscaling.setMaxReplicas(4);
        pool.getSpec().setAutoscaling(autoscaling);
        return pool;
    }

    /**
     * A kubeconfig for the operator that authenticates as in its pod: a ServiceAccount's bearer token (a TokenRequest,
     * valid for the run), not the control plane's admin client certificate. It matters for what is measured: with a
     * certificate and no token, the fabric8 client's token refresh re-reads and parses the kubeconfig on every request
     * once the client is a minute old (12 % of the reconcile threads' CPU in a JFR profile), which a pod, whose token
     * it re-reads once a minute, never does. The account is bound to cluster-admin here, not to the chart's narrower
     * ClusterRole (authorizing either is a lookup of the same bindings).
     */
    private Path podCredentials(ControlPlane cp, Path work, String system) throws IOException {
        client.serviceAccounts()
                .inNamespace(system)
                .resource(new io.fabric8.kubernetes.api.model.ServiceAccountBuilder()
                        .withNewMetadata()
                        .withName(OPERATOR_ACCOUNT)
                        .endMetadata()
                        .build())
                .create();
        client.rbac()
                .clusterRoleBindings()
                .resource(new io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder()
                        .withNewMetadata()
                        .withName(runId + "-operator")
                        .addToLabels(BENCH_LABEL, "operator-scale")
                        .endMetadata()
                        .withNewRoleRef()
                        .withApiGroup("rbac.authorization.k8s.io")
                        .withKind("ClusterRole")
                        .withName("cluster-admin")
                        .endRoleRef()
                        .addNewSubject()
                        .withKind("ServiceAccount")
                        .withName(OPERATOR_ACCOUNT)
                        .withNamespace(system)
                        .endSubject()
                        .build())
                .create();
        String token = client.serviceAccounts()
                .inNamespace(system)
                .withName(OPERATOR_ACCOUNT)
                .tokenRequest(new io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder()
                        .withNewSpec()
                        .withExpirationSeconds(24 * 3600L)
                        .endSpec()
                        .build())
                .getStatus()
                .getToken();
        io.fabric8.kubernetes.client.Config admin =
                io.fabric8.kubernetes.client.Config.fromKubeconfig(Files.readString(cp.kubeconfig()));
        Path kubeconfig = work.resolve("kubeconfig");
        Files.writeString(
                kubeconfig,
                String.join(
                        "\n",
                        "apiVersion: v1",
                        "kind: Config",
                        "clusters:",
                        "- name: bench",
                        "  cluster:",
                        "    server: " + admin.getMasterUrl(),
                        "    certificate-authority: " + admin.getCaCertFile(),
                        "users:",
                        "- name: " + OPERATOR_ACCOUNT,
                        "  user:",
                        "    token: " + token,
                        "contexts:",
                        "- name: bench",
                        "  context:",
                        "    cluster: bench",
                        "    user: " + OPERATOR_ACCOUNT,
                        "current-context: bench",
                        ""));
        return kubeconfig;
    }

    /** The chart's match condition: UPDATEs that keep the spec (the operator's finalizer) do not call the webhook. */
    private static final String SPEC_CREATED_OR_CHANGED =
            "request.operation != 'UPDATE' || !has(object.spec) || !has(oldObject.spec) || object.spec != oldObject.spec";

    /** The chart's ValidatingWebhookConfiguration for both kinds, pointed at the operator's URL. */
    private void registerWebhook(int port, byte[] ca) {
        // A run killed before its clean-up leaves its configuration behind: its failurePolicy Fail would refuse
        // every create of this run (its operator is gone), so it goes first.
        for (ValidatingWebhookConfiguration stale : client.resources(ValidatingWebhookConfiguration.class)
                .withLabel(BENCH_LABEL, "operator-scale")
                .list()
                .getItems()) {
            System.out.println("deleting the webhook configuration "
                    + stale.getMetadata().getName() + " left by an earlier run that did not finish");
            client.resource(stale).delete();
        }
        ValidatingWebhookConfigurationBuilder builder = new ValidatingWebhookConfigurationBuilder()
                .withNewMetadata()
                .withName(runId + "-webhook")
                .addToLabels(BENCH_LABEL, "operator-scale")
                .endMetadata();
        for (String[] kind : new String[][] {
            {"backstagetopology", "backstagetopologies"}, {"backstageworkerpool", "backstageworkerpools"}
        }) {
            builder.addToWebhooks(new ValidatingWebhookBuilder()
                    .withName(kind[0] + "." + runId + ".validate.backstage.dev")
                    .withAdmissionReviewVersions("v1")
                    .withSideEffects("None")
                    .withFailurePolicy("Fail")
                    .withTimeoutSeconds(10)
                    .withMatchPolicy("Equivalent")
                    .withNewClientConfig()
                    .withUrl("https://127.0.0.1:" + port + "/validate/" + kind[0])
                    .withCaBundle(Base64.getEncoder().encodeToString(ca))
                    .endClientConfig()
                    .addNewRule()
                    .withApiGroups("backstage.dev")
                    .withApiVersions("*")
                    .withResources(kind[1])
                    .withOperations("CREATE", "UPDATE")
                    .withScope("Namespaced")
                    .endRule()
                    .addNewMatchCondition()
                    .withName("spec-created-or-changed")
                    .withExpression(SPEC_CREATED_OR_CHANGED)
                    .endMatchCondition()
                    .withNewNamespaceSelector()
                    .addToMatchLabels(BENCH_LABEL, "operator-scale")
                    .endNamespaceSelector()
                    .build());
        }
        client.resource(builder.build()).create();
    }

    /** Creates, sending again when the API server failed (e.g. a webhook timeout); an AlreadyExists then is success. */
    private void create(io.fabric8.kubernetes.api.model.HasMetadata object) {
        for (int attempt = 1; ; attempt++) {
            try {
                client.resource(object).create();
                return;
            } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                if (attempt > 1 && e.getCode() == java.net.HttpURLConnection.HTTP_CONFLICT) {
                    return;
                }
                if (attempt >= 5 || (e.getCode() >= 400 && e.getCode() < 500)) {
                    throw e;
                }
                createRetries.incrementAndGet();
            }
        }
    }

    private void deleteNamespace(String ns) throws InterruptedException {
        client.namespaces().withName(ns).delete();
        long deadline = System.nanoTime() + GONE_DEADLINE.toNanos();
        while (client.namespaces().withName(ns).get() != null) {
            if (operator != null && !operator.alive()) {
                throw new IllegalStateException("the operator exited while namespace " + ns
                        + " was being deleted (log: " + operator.log() + ")");
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("namespace " + ns + " still there after " + GONE_DEADLINE);
            }
            Thread.sleep(1000); // polling the namespace's existence, not a synchronisation by time
        }
    }

    private void tearDown() {
        String ns = activeNamespace;
        if (ns != null && operator != null && operator.alive()) {
            // Its topologies carry the operator's finalizer: delete them while it runs.
            try {
                System.out.println("deleting namespace " + ns + " of the failed round");
                deleteNamespace(ns);
                ns = null;
            } catch (Exception e) {
                System.out.println("could not delete namespace " + ns + " with the operator: " + e);
            }
        }
        if (operator != null) {
            operator.stop();
        }
        client.resources(ValidatingWebhookConfiguration.class)
                .withName(runId + "-webhook")
                .delete();
        client.rbac().clusterRoleBindings().withName(runId + "-operator").delete();
        if (ns != null) {
            // No operator to remove its finalizers (it failed): remove them, so the namespace can go.
            System.out.println("removing the finalizers of the topologies in " + ns + " and deleting it");
            for (BackstageTopology t : client.resources(BackstageTopology.class)
                    .inNamespace(ns)
                    .list()
                    .getItems()) {
                client.resources(BackstageTopology.class)
                        .inNamespace(ns)
                        .withName(t.getMetadata().getName())
                        .edit(x -> {
                            x.getMetadata().setFinalizers(List.of());
                            return x;
                        });
            }
            client.namespaces().withName(ns).delete();
        }
        System.out.println("Redis keys deleted at the end: " + deleteRedisKeys(runId + "-*"));
        if (systemNamespace != null) {
            api.deleteNamespace(systemNamespace);
        }
    }

    // --- measurements ---

    private static final Pattern REQUEST_TOTAL = Pattern.compile("^apiserver_request_total\\{(.*)} (\\S+)$");
    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

    /** What the window measures is taken at its two ends: time, CPU of each process, the API server's and etcd's metrics. */
    private record Snapshot(
            long nanos,
            Map<String, Long> ticks,
            long driverCpuNanos,
            String apiMetrics,
            String etcdMetrics,
            String load) {}

    private Snapshot snapshot() {
        String metrics = apiMetrics();
        String etcd = etcdMetrics();
        Map<String, Long> ticks = new java.util.LinkedHashMap<>();
        controlPlanePids.forEach((name, pid) -> ticks.put(name, processTicks(pid)));
        if (operator != null) {
            ticks.put("operator", processTicks(operator.pid()));
        }
        long driver = ((com.sun.management.OperatingSystemMXBean)
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
        return new Snapshot(System.nanoTime(), ticks, driver, metrics, etcd, load());
    }

    /**
     * Between two snapshots: the creates' rate, the API server's own time per create and what it was spent on (its
     * request, admission-webhook and etcd-client histograms), etcd's WAL fsyncs, and each process's CPU.
     */
    record Window(
            double seconds,
            int creates,
            Map<String, Double> cpuSeconds,
            double postSeconds,
            double posts,
            double webhookSeconds,
            double webhookCalls,
            double etcdSeconds,
            double etcdCreates,
            double fsyncSeconds,
            double fsyncs,
            String load) {
        Window(Snapshot a, Snapshot b, int pools) {
            this(
                    OperatorScaleBenchmark.seconds(b.nanos() - a.nanos()),
                    2 * pools,
                    cpu(a, b),
                    delta(a, b, "apiserver_request_duration_seconds_sum", CREATE_REQUEST),
                    delta(a, b, "apiserver_request_duration_seconds_count", CREATE_REQUEST),
                    delta(a, b, "apiserver_admission_webhook_admission_duration_seconds_sum", WEBHOOK_CREATE),
                    delta(a, b, "apiserver_admission_webhook_admission_duration_seconds_count", WEBHOOK_CREATE),
                    delta(a, b, "etcd_request_duration_seconds_sum", ETCD_CREATE),
                    delta(a, b, "etcd_request_duration_seconds_count", ETCD_CREATE),
                    metricSum(b.etcdMetrics(), "etcd_disk_wal_fsync_duration_seconds_sum", l -> true)
                            - metricSum(a.etcdMetrics(), "etcd_disk_wal_fsync_duration_seconds_sum", l -> true),
                    metricSum(b.etcdMetrics(), "etcd_disk_wal_fsync_duration_seconds_count", l -> true)
                            - metricSum(a.etcdMetrics(), "etcd_disk_wal_fsync_duration_seconds_count", l -> true),
                    a.load() + " -> " + b.load());
        }

        private static Map<String, Double> cpu(Snapshot a, Snapshot b) {
            Map<String, Double> cpu = new java.util.LinkedHashMap<>();
            b.ticks().forEach((name, ticks) -> {
                Long start = a.ticks().get(name);
                if (start != null && start >= 0 && ticks >= 0) {
                    cpu.put(name, (ticks - start) / 100.0);
                }
            });
            cpu.put("driver (this JVM)", (b.driverCpuNanos() - a.driverCpuNanos()) / 1e9);
            return cpu;
        }

        private static double delta(
                Snapshot a, Snapshot b, String series, java.util.function.Predicate<Map<String, String>> labels) {
            return metricSum(b.apiMetrics(), series, labels) - metricSum(a.apiMetrics(), series, labels);
        }

        double createsPerSecond() {
            return creates / seconds;
        }

        /** kube-apiserver's CPU per create, in ms (all its work in the window, divided by the creates). */
        double apiServerCpuMsPerCreate() {
            return cpuSeconds.getOrDefault("kube-apiserver", Double.NaN) * 1000 / creates;
        }

        /** The API server's own mean time per create request (POST of our kinds), in ms. */
        double serverMsPerCreate() {
            return posts == 0 ? Double.NaN : postSeconds * 1000 / posts;
        }

        double webhookMsPerCall() {
            return webhookCalls == 0 ? 0 : webhookSeconds * 1000 / webhookCalls;
        }

        void print() {
            if (posts > 0) {
                printCreates();
            }
            System.out.printf(
                    "      CPU over %.1f s: %s; kube-apiserver %.1f ms per create; machine load %s%n",
                    seconds,
                    cpuSeconds.entrySet().stream()
                            .map(e -> String.format(
                                    "%s %.1f s (%.2f cores)", e.getKey(), e.getValue(), e.getValue() / seconds))
                            .collect(Collectors.joining(", ")),
                    apiServerCpuMsPerCreate(),
                    load);
        }

        private void printCreates() {
            System.out.printf(
                    "      per create: %.0f ms as the driver sees it (%d threads / %.1f creates/s); the API "
                            + "server's own time %.1f ms (apiserver_request_duration_seconds, %.0f POSTs of the two kinds), of "
                            + "which the admission webhook %.1f ms (%.0f calls) and etcd %.1f ms (%.0f creates); etcd WAL "
                            + "fsyncs %.0f (%.2f ms mean)%n",
                    CREATE_THREADS * 1000 / createsPerSecond(),
                    CREATE_THREADS,
                    createsPerSecond(),
                    serverMsPerCreate(),
                    posts,
                    webhookMsPerCall(),
                    webhookCalls,
                    etcdCreates == 0 ? 0 : etcdSeconds * 1000 / etcdCreates,
                    etcdCreates,
                    fsyncs,
                    fsyncs == 0 ? 0 : fsyncSeconds * 1000 / fsyncs);
        }
    }

    private static final java.util.function.Predicate<Map<String, String>> CREATE_REQUEST =
            l -> "POST".equals(l.get("verb")) && "backstage.dev".equals(l.get("group"));
    private static final java.util.function.Predicate<Map<String, String>> WEBHOOK_CREATE =
            l -> "CREATE".equals(l.get("operation"));
    private static final java.util.function.Predicate<Map<String, String>> ETCD_CREATE =
            l -> "create".equals(l.get("operation")) && "backstage.dev".equals(l.get("group"));

    /** The sum of a Prometheus text series over the label sets {@code labels} accepts. */
    static double metricSum(String metrics, String series, java.util.function.Predicate<Map<String, String>> labels) {
        double sum = 0;
        for (String line : metrics.split("\n")) {
            if (!line.startsWith(series)) {
                continue;
            }
            String rest = line.substring(series.length());
            Map<String, String> parsed = new TreeMap<>();
            if (rest.startsWith("{")) {
                Matcher l = LABEL.matcher(rest.substring(0, rest.lastIndexOf('}')));
                while (l.find()) {
                    parsed.put(l.group(1), l.group(2));
                }
            } else if (!rest.startsWith(" ")) {
                continue; // another series with this one's name as a prefix
            }
            if (labels.test(parsed)) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    /** etcd's /metrics (its client port, as bin/control-plane starts it), or empty when it does not answer. */
    private String etcdMetrics() {
        String port = System.getenv().getOrDefault("BACKSTAGE_ETCD_PORT", "32379");
        try {
            return http.send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /** The control plane's processes from bin/control-plane's pid files (BACKSTAGE_CLUSTER_DIR/run/NAME.pid). */
    private static Map<String, Long> controlPlanePids() {
        String dir = System.getenv()
                .getOrDefault("BACKSTAGE_CLUSTER_DIR", System.getProperty("user.home") + "/.cache/backstage/cluster");
        Map<String, Long> pids = new java.util.LinkedHashMap<>();
        for (String name : List.of("kube-apiserver", "etcd", "kube-controller-manager")) {
            try {
                pids.put(
                        name,
                        Long.parseLong(Files.readString(Path.of(dir, "run", name + ".pid"))
                                .trim()));
            } catch (IOException | NumberFormatException e) {
                System.out.println("no pid file for " + name + " in " + dir + "/run: its CPU is not measured");
            }
        }
        return pids;
    }

    /**
     * The {@code --kube-api-qps} kube-controller-manager runs with, from its own command line: a cluster started
     * without it writes the pools' Deployments at 20 requests/s, which more than doubles the time to all Ready.
     */
    static String controllerManagerRate(Long pid) {
        if (pid == null) {
            return "unknown (no pid file)";
        }
        try {
            List<String> args = List.of(
                    Files.readString(Path.of("/proc/" + pid + "/cmdline")).split("\0"));
            int at = args.indexOf("--kube-api-qps");
            return at >= 0 && at + 1 < args.size() ? args.get(at + 1) + " requests/s" : "its default, 20 requests/s";
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    /** utime + stime of a process, in clock ticks (USER_HZ, 100 on Linux); -1 when it cannot be read. */
    static long processTicks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]); // fields 14 and 15 of stat(5)
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private void createSummary(Map<Side, List<Window>> creates) {
        if (creates.isEmpty()) {
            return;
        }
        System.out.printf(
                "%nthe creates (%d objects by %d threads), per side, median [min - max] over the measured "
                        + "rounds:%n",
                2 * pools, CREATE_THREADS);
        for (Side side : sides) {
            List<Window> w = creates.get(side);
            if (w == null) {
                continue;
            }
            System.out.println("  " + side.key + ":");
            spread("creates/s", w, Window::createsPerSecond, "%.1f");
            spread("creates window (s)", w, Window::seconds, "%.1f");
            spread("API server's own time per create (ms)", w, Window::serverMsPerCreate, "%.1f");
            spread("  of which the admission webhook (ms)", w, Window::webhookMsPerCall, "%.1f");
            spread("kube-apiserver CPU per create (ms)", w, Window::apiServerCpuMsPerCreate, "%.1f");
            for (String process : w.get(0).cpuSeconds().keySet()) {
                spread(
                        process + " CPU in the window (cores)",
                        w,
                        x -> x.cpuSeconds().getOrDefault(process, Double.NaN) / x.seconds(),
                        "%.2f");
            }
        }
        List<Window> alone = creates.get(Side.APISERVER);
        if (alone != null) {
            double base =
                    median(alone.stream().mapToDouble(Window::createsPerSecond).toArray());
            for (Side side : sides) {
                if (side != Side.APISERVER && creates.containsKey(side)) {
                    double other = median(creates.get(side).stream()
                            .mapToDouble(Window::createsPerSecond)
                            .toArray());
                    System.out.printf(
                            "  creates/s with %s ÷ API server alone: %.1f ÷ %.1f = %.2f%n",
                            side.key, other, base, other / base);
                }
            }
        }
        System.out.println("  load per side and round: "
                + sides.stream()
                        .filter(creates::containsKey)
                        .map(side -> side.key + " "
                                + creates.get(side).stream().map(Window::load).collect(Collectors.joining(", ")))
                        .collect(Collectors.joining(" | ")));
    }

    private static <T> void spread(String name, List<T> values, ToDoubleFunction<T> value, String format) {
        double[] v = values.stream().mapToDouble(value).sorted().toArray();
        System.out.printf(
                "    %-44s %s [%s - %s]%n",
                name, format.formatted(median(v)), format.formatted(v[0]), format.formatted(v[v.length - 1]));
    }

    private static double median(double[] values) {
        double[] v = values.clone();
        java.util.Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** The API server's /metrics. */
    private String apiMetrics() {
        return api.controlPlane().kubectl("get", "--raw", "/metrics").orThrow().out();
    }

    /** The API server's own request counters, summed by verb and resource[/subresource]. */
    private static Map<String, Double> apiRequests(String metrics) {
        Map<String, Double> byKey = new TreeMap<>();
        for (String line : metrics.split("\n")) {
            Matcher m = REQUEST_TOTAL.matcher(line);
            if (!m.matches()) {
                continue;
            }
            Map<String, String> labels = new TreeMap<>();
            Matcher l = LABEL.matcher(m.group(1));
            while (l.find()) {
                labels.put(l.group(1), l.group(2));
            }
            String resource = labels.getOrDefault("resource", "");
            if (resource.isEmpty()) {
                continue; // non-resource requests: this driver's /metrics scrapes, health checks
            }
            String sub = labels.getOrDefault("subresource", "");
            String key = labels.get("verb") + " " + resource + (sub.isEmpty() ? "" : "/" + sub);
            byKey.merge(key, Double.parseDouble(m.group(2)), Double::sum);
        }
        return byKey;
    }

    /** CPU per thread group (names with their digits dropped) between two samples, busiest first. */
    private static String threadCpu(Map<String, Long> before, Map<String, Long> after, double seconds) {
        Map<String, Double> groups = new TreeMap<>();
        // Keyed by thread id: a thread may be renamed between the samples (executors name their threads per task).
        Map<String, Long> beforeById = new TreeMap<>();
        before.forEach((key, ticks) -> beforeById.put(key.substring(0, key.indexOf(' ')), ticks));
        after.forEach((key, ticks) -> {
            String group = key.substring(key.indexOf(' ') + 1).replaceAll("[0-9]+", "N");
            long start = beforeById.getOrDefault(key.substring(0, key.indexOf(' ')), 0L);
            groups.merge(group, (ticks - start) / 100.0 / seconds, Double::sum);
        });
        return groups.entrySet().stream()
                .filter(e -> e.getValue() >= 0.001)
                .sorted(Comparator.comparing((Map.Entry<String, Double> e) -> -e.getValue()))
                .map(e -> String.format("%s %.3f", e.getKey(), e.getValue()))
                .collect(Collectors.joining(", "));
    }

    private static Map<String, Double> diff(Map<String, Double> before, Map<String, Double> after) {
        Map<String, Double> d = new TreeMap<>();
        after.forEach((k, v) -> {
            double delta = v - before.getOrDefault(k, 0.0);
            if (delta > 0) {
                d.put(k, delta);
            }
        });
        return d;
    }

    private static long deleteRedisKeys(String pattern) {
        RedisClient redis = RedisClient.create(REDIS_URL);
        try (StatefulRedisConnection<String, String> connection = redis.connect()) {
            var commands = connection.sync();
            long deleted = 0;
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                var page =
                        commands.scan(cursor, ScanArgs.Builder.matches(pattern).limit(1000));
                if (!page.getKeys().isEmpty()) {
                    deleted += commands.unlink(page.getKeys().toArray(String[]::new));
                }
                cursor = page;
            } while (!cursor.isFinished());
            return deleted;
        } finally {
            redis.shutdown();
        }
    }

    static String load() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + "/" + f[1] + "/" + f[2];
        } catch (IOException e) {
            return "?";
        }
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }

    private static void sleepSeconds(int s) throws InterruptedException {
        Thread.sleep(s * 1000L); // a measurement window, not a synchronisation
    }

    private static int arg(String[] args, int i, int fallback) {
        return args.length > i ? Integer.parseInt(args[i]) : fallback;
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** Heap used and max (the operator's /metrics) and RSS (/proc/PID/status), in MiB. */
    record Memory(double heapMiB, double heapMaxMiB, double rssMiB) {}

    record RoundResult(
            double createSeconds,
            double topologiesReadySeconds,
            double readySeconds,
            Map<String, Double> api,
            Map<String, Double> idleApi,
            double idleSeconds,
            double idleCores,
            Memory settled,
            Memory afterGc,
            int threads,
            int redisConnections,
            String load,
            String idleLoad,
            Window creates) {
        double apiTotal() {
            return api.values().stream().mapToDouble(Double::doubleValue).sum();
        }

        double idleApiTotal() {
            return idleApi.values().stream().mapToDouble(Double::doubleValue).sum();
        }

        void print(String label, int pools) {
            System.out.printf(
                    "  %s: all %d pools Ready in %.1f s (creates returned at %.1f s, topologies all Ready at "
                            + "%.1f s; load %s)%n",
                    label, pools, readySeconds, createSeconds, topologiesReadySeconds, load);
            System.out.printf(
                    "    API requests in the timed window: %.0f = %.1f per pool (apiserver_request_total, all "
                            + "clients); per pool by verb and resource:%n",
                    apiTotal(), apiTotal() / pools);
            System.out.println("      " + perPool(api, pools));
            System.out.printf(
                    "    operator after %s: heap used %.0f MiB of %.0f MiB max, RSS %.0f MiB; after a full "
                            + "GC: heap %.0f MiB, RSS %.0f MiB; %d threads, %d connections to Redis%n",
                    "settling",
                    settled.heapMiB(),
                    settled.heapMaxMiB(),
                    settled.rssMiB(),
                    afterGc.heapMiB(),
                    afterGc.rssMiB(),
                    threads,
                    redisConnections);
            System.out.printf(
                    "    idle (every pool polling its backlog): operator CPU %.3f cores over %.0f s; API "
                            + "requests %.1f/s (%.2f per pool per minute), load %s%n",
                    idleCores,
                    idleSeconds,
                    idleApiTotal() / idleSeconds,
                    idleApiTotal() / pools / idleSeconds * 60,
                    idleLoad);
            System.out.println("      " + perPool(idleApi, pools));
        }

        private static String perPool(Map<String, Double> counts, int pools) {
            return counts.entrySet().stream()
                    .sorted(Comparator.comparing((Map.Entry<String, Double> e) -> -e.getValue()))
                    .map(e -> String.format("%s %.2f", e.getKey(), e.getValue() / pools))
                    .collect(Collectors.joining(", "));
        }
    }

    /** A driver-side watch counting the objects whose status says Ready=True. */
    private static final class ReadyWatch<T extends io.fabric8.kubernetes.api.model.HasMetadata> {
        private final SharedIndexInformer<T> informer;
        private final Set<String> ready = ConcurrentHashMap.newKeySet();
        private final Set<String> seen = ConcurrentHashMap.newKeySet();
        private final Object changed = new Object();
        private volatile long lastReadyAt;

        ReadyWatch(
                SharedIndexInformer<T> informer, Function<T, List<dev.backstage.operator.model.Condition>> conditions) {
            this.informer = informer;
            informer.addEventHandler(new ResourceEventHandler<T>() {
                @Override
                public void onAdd(T obj) {
                    seen(obj);
                }

                @Override
                public void onUpdate(T oldObj, T newObj) {
                    seen(newObj);
                }

                @Override
                public void onDelete(T obj, boolean deletedFinalStateUnknown) {
                    ready.remove(obj.getMetadata().getName());
                }

                private void seen(T obj) {
                    if (seen.add(obj.getMetadata().getName()) && seen.size() % 100 == 0) {
                        synchronized (changed) {
                            changed.notifyAll();
                        }
                    }
                    boolean isReady = Conditions.isTrue(conditions.apply(obj), Conditions.READY);
                    boolean change = isReady
                            ? ready.add(obj.getMetadata().getName())
                            : ready.remove(obj.getMetadata().getName());
                    if (change) {
                        if (isReady) {
                            lastReadyAt = System.nanoTime();
                        }
                        synchronized (changed) {
                            changed.notifyAll();
                        }
                    }
                }
            });
        }

        int count() {
            return ready.size();
        }

        /** Objects this watch has seen (added), Ready or not. */
        int seen() {
            return seen.size();
        }

        long lastReadyAt() {
            return lastReadyAt;
        }

        void awaitChange(Duration atMost) throws InterruptedException {
            synchronized (changed) {
                changed.wait(atMost.toMillis());
            }
        }

        void close() {
            informer.close();
        }
    }

    /** The operator as its image runs it: the packaged jar and lib/, in a JVM of its own. */
    private static final class OperatorProcess {
        private final Process process;
        private final Path log;
        private final int httpPort;
        private final String leaseName;
        private final String leaseNamespace;
        private final String identity;
        private final List<String> jvmOptions;
        private final Path jar;

        private OperatorProcess(
                Process process,
                Path log,
                int httpPort,
                String leaseName,
                String leaseNamespace,
                String identity,
                List<String> jvmOptions,
                Path jar) {
            this.jar = jar;
            this.process = process;
            this.log = log;
            this.httpPort = httpPort;
            this.leaseName = leaseName;
            this.leaseNamespace = leaseNamespace;
            this.identity = identity;
            this.jvmOptions = jvmOptions;
        }

        static OperatorProcess start(
                ControlPlane cp,
                Path work,
                Path kubeconfig,
                String system,
                int webhookPort,
                Path tls,
                String watchNamespaces)
                throws IOException {
            // BENCH_OPERATOR_TARGET: another build's jar and lib/ (e.g. a copy from before a change), for before/after.
            String other =
                    System.getenv().getOrDefault("BENCH_OPERATOR_TARGET", "").trim();
            Path target = other.isEmpty() ? cp.root().resolve("operator/target") : Path.of(other);
            Path jar;
            try (var files = Files.list(target)) {
                jar = files.filter(p -> p.getFileName().toString().matches("operator-.*\\.jar")
                                && !p.getFileName().toString().endsWith("-tests.jar"))
                        .findFirst()
                        .orElseThrow(() -> new IllegalStateException("no operator jar in " + target
                                + ": run mvn -B -ntp -pl operator -am package -DskipTests"));
            }
            if (!Files.isDirectory(target.resolve("lib"))) {
                throw new IllegalStateException(
                        "no " + target.resolve("lib") + ": run mvn -B -ntp -pl operator -am package -DskipTests");
            }
            int httpPort = freePort();
            List<String> jvm = new ArrayList<>(CONTAINER_LIMITS);
            String extra =
                    System.getenv().getOrDefault("BENCH_OPERATOR_JVM_OPTS", "").trim();
            if (!extra.isEmpty()) {
                jvm.addAll(List.of(extra.split("\\s+")));
            }
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(jvm);
            command.addAll(List.of(
                    "-cp", jar + ":" + target.resolve("lib") + "/*", "dev.backstage.operator.main.OperatorMain"));
            Path log = work.resolve("operator.log");
            ProcessBuilder builder =
                    new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
            String identity = "backstage-operator-bench-0";
            String leaseName = "backstage-operator";
            Map<String, String> env = builder.environment();
            env.put("KUBECONFIG", kubeconfig.toString());
            env.put("JAVA_TOOL_OPTIONS", CHART_JAVA_TOOL_OPTIONS);
            env.put("WATCH_NAMESPACES", watchNamespaces);
            env.put("POD_NAME", identity);
            env.put("POD_NAMESPACE", system);
            env.put("BACKSTAGE_LEASE_NAME", leaseName);
            env.put("BACKSTAGE_LEASE_NAMESPACE", system);
            env.put("BACKSTAGE_HTTP_PORT", String.valueOf(httpPort));
            env.put("BACKSTAGE_CONSOLE_PORT", "0"); // on, as the chart ships it, on a free port
            env.put("WEBHOOK_TLS_DIR", tls.toString());
            env.put("BACKSTAGE_WEBHOOK_PORT", String.valueOf(webhookPort));
            return new OperatorProcess(builder.start(), log, httpPort, leaseName, system, identity, jvm, jar);
        }

        Path jar() {
            return jar;
        }

        long pid() {
            return process.pid();
        }

        Path log() {
            return log;
        }

        List<String> jvmOptions() {
            return jvmOptions;
        }

        boolean alive() {
            return process.isAlive();
        }

        void awaitLeading(KubernetesClient client, HttpClient http) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
            while (true) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("the operator exited at start (log: " + log + ")");
                }
                var lease = client.leases()
                        .inNamespace(leaseNamespace)
                        .withName(leaseName)
                        .get();
                boolean leads = lease != null && identity.equals(lease.getSpec().getHolderIdentity());
                if (leads && status(http, "/readyz") == 200) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "the operator did not lead and become ready within 3 min (log: " + log + ")");
                }
                Thread.sleep(250); // polling a condition with a deadline
            }
        }

        private int status(HttpClient http, String path) {
            try {
                return http.send(
                                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
                                        .build(),
                                HttpResponse.BodyHandlers.discarding())
                        .statusCode();
            } catch (IOException e) {
                return -1;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return -1;
            }
        }

        /** The sum of a metric's series in the operator's /metrics (e.g. over heap pools). */
        double metric(HttpClient http, String name) throws IOException, InterruptedException {
            return metric(http, name, "");
        }

        double metric(HttpClient http, String name, String labelFilter) throws IOException, InterruptedException {
            String body = http.send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/metrics"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            double sum = 0;
            for (String line : body.split("\n")) {
                if ((line.startsWith(name + "{") || line.startsWith(name + " ")) && line.contains(labelFilter)) {
                    double v = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                    if (v > 0) {
                        sum += v;
                    }
                }
            }
            return sum;
        }

        /** Reconciliations JOSDK started for one kind, retries included. */
        double reconciles(HttpClient http, String kind) throws IOException, InterruptedException {
            return metric(http, "operator_sdk_reconciliations_started_total", "kind=\"" + kind + "\"");
        }

        Memory memory(HttpClient http) throws IOException, InterruptedException {
            double heap = metric(http, "jvm_memory_used_bytes", "area=\"heap\"");
            double max = metric(http, "jvm_memory_max_bytes", "area=\"heap\"");
            long rssKb = 0;
            for (String line : Files.readAllLines(Path.of("/proc/" + pid() + "/status"))) {
                if (line.startsWith("VmRSS:")) {
                    rssKb = Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
            return new Memory(heap / 1048576, max / 1048576, rssKb / 1024.0);
        }

        /** utime + stime of the operator process, in clock ticks (USER_HZ, 100 on Linux). */
        long cpuTicks() throws IOException {
            return processTicks(pid());
        }

        /** utime + stime per thread ("tid name" -> ticks), from /proc/PID/task. */
        Map<String, Long> threadTicks() throws IOException {
            Map<String, Long> ticks = new TreeMap<>();
            try (var tasks = Files.list(Path.of("/proc/" + pid() + "/task"))) {
                for (Path task : tasks.toList()) {
                    try {
                        String stat = Files.readString(task.resolve("stat"));
                        String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                        ticks.put(task.getFileName() + " " + name, Long.parseLong(f[11]) + Long.parseLong(f[12]));
                    } catch (IOException | RuntimeException ignored) {
                        // the thread ended meanwhile
                    }
                }
            }
            return ticks;
        }

        /** Established TCP connections of the process to {@code port} (its sockets in /proc/net/tcp{,6}). */
        int connectionsToPort(int port) throws IOException {
            Set<String> inodes = new java.util.HashSet<>();
            try (var fds = Files.list(Path.of("/proc/" + pid() + "/fd"))) {
                for (Path fd : fds.toList()) {
                    try {
                        String target = Files.readSymbolicLink(fd).toString();
                        if (target.startsWith("socket:[")) {
                            inodes.add(target.substring(8, target.length() - 1));
                        }
                    } catch (IOException ignored) {
                        // closed meanwhile
                    }
                }
            }
            String hexPort = String.format(":%04X", port);
            int count = 0;
            for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
                for (String line : Files.readAllLines(Path.of(table))) {
                    String[] f = line.trim().split("\\s+");
                    if (f.length > 9 && f[2].endsWith(hexPort) && "01".equals(f[3]) && inodes.contains(f[9])) {
                        count++;
                    }
                }
            }
            return count;
        }

        void forceGc() throws IOException, InterruptedException {
            new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "jcmd")
                                    .toString(),
                            String.valueOf(pid()),
                            "GC.run")
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start()
                    .waitFor(60, TimeUnit.SECONDS);
        }

        void stop() {
            process.destroy(); // SIGTERM, as the kubelet does
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
