package dev.backstage.operator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.testing.RealApiServer;
import dev.backstage.runtime.cli.BackstageCli;
import dev.backstage.testsupport.ControlPlane;
import dev.backstage.testsupport.SharedBroker;
import dev.backstage.testsupport.UniqueNames;
import dev.backstage.testsupport.UsesSharedBrokers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/kubectl-backstage} on the real API server: it finds a pool's topology and connection Secret with
 * kubectl and runs the CLI against the real Redis they name; its errors are one line and never show the URL.
 */
@Tag("cluster")
@UsesSharedBrokers(SharedBroker.REDIS_CLUSTER)
class KubectlBackstagePluginTest {
    private static final String REDIS = System.getenv().getOrDefault("BACKSTAGE_REDIS_URL", "redis://127.0.0.1:6379");

    private final RealApiServer api = RealApiServer.shared();
    private final ControlPlane cp = api.controlPlane();
    private final String prefix = UniqueNames.prefix("kbp");
    private String namespace;
    private RedisClient client;
    private StatefulRedisConnection<String, String> connection;

    @BeforeEach
    void setUp() {
        namespace = api.namespace("kbplugin");
        client = RedisClient.create(REDIS);
        connection = client.connect();
    }

    @AfterEach
    void tearDown() {
        RedisCommands<String, String> redis = connection.sync();
        var scan = redis.scan(ScanArgs.Builder.matches(prefix + ":*").limit(1000));
        while (true) {
            if (!scan.getKeys().isEmpty()) {
                redis.del(scan.getKeys().toArray(String[]::new));
            }
            if (scan.isFinished()) {
                break;
            }
            scan = redis.scan(scan, ScanArgs.Builder.matches(prefix + ":*").limit(1000));
        }
        connection.close();
        client.shutdown();
        api.deleteNamespace(namespace);
    }

    private void apply(String yaml) {
        cp.kubectlWithInput(yaml, "apply", "-n", namespace, "-f", "-").orThrow();
    }

    private void topologyAndPool(String topology, String secret, String pool) {
        apply("""
                apiVersion: backstage.dev/v1alpha1
                kind: BackstageTopology
                metadata: {name: %s}
                spec:
                  provider: redis
                  connection: {secretName: %s, key: url}
                  keyPrefix: %s
                  consumerGroup: shop-workers
                  queues: [{name: default}, {name: emails}]
                ---
                apiVersion: backstage.dev/v1alpha1
                kind: BackstageWorkerPool
                metadata: {name: %s}
                spec:
                  image: backstage-sample-tasks:0.1.0
                  topologyRef: {name: %s}
                  queues: [default, emails]
                """.formatted(topology, secret, prefix, pool, topology));
    }

    private ControlPlane.Result plugin(String... args) {
        String[] command = new String[args.length + 1];
        command[0] = cp.root().resolve("bin/kubectl-backstage").toString();
        System.arraycopy(args, 0, command, 1, args.length);
        // The CLI main from this test's class path (the runtime's classes), as BACKSTAGE_CLI_CLASSPATH documents.
        ControlPlane.Result result =
                cp.runWithCluster(Map.of("BACKSTAGE_CLI_CLASSPATH", System.getProperty("java.class.path")), command);
        System.out.println("$ kubectl backstage " + String.join(" ", args) + "   (exit " + result.exit() + ")\n"
                + result.out() + result.err());
        return result;
    }

    private static void assertOneLineError(ControlPlane.Result run, int exit, String expected) {
        assertEquals(exit, run.exit(), run.err());
        assertEquals(1, run.err().strip().lines().count(), run.err());
        assertTrue(run.err().contains(expected), run.err());
        assertTrue(run.out().isBlank(), run.out());
    }

    @Test
    void givenAPoolWithItsTopologyAndSecret_thenInspectShowsTheQueueCountsThatAreInRedis() {
        cp.kubectl("create", "secret", "generic", "shop-redis", "-n", namespace, "--from-literal=url=" + REDIS)
                .orThrow();
        topologyAndPool("shop-redis", "shop-redis", "shop-workers");
        assertEquals(0, BackstageCli.execute("enqueue", "processOrder", "{}", "--count", "4", "--prefix", prefix));
        assertEquals(
                0,
                BackstageCli.execute(
                        "enqueue", "sendReceipt", "{}", "--count", "2", "--queue", "emails", "--prefix", prefix));
        for (int i = 0; i < 3; i++) {
            assertEquals(
                    0,
                    BackstageCli.execute(
                            "schedule",
                            "sendReceipt",
                            "{}",
                            "--delay",
                            "10m",
                            "--queue",
                            "emails",
                            "--prefix",
                            prefix));
        }
        RedisCommands<String, String> redis = connection.sync();
        long defaults = redis.xlen(prefix + ":default");
        long emails = redis.xlen(prefix + ":emails");
        long delayed = redis.zcard(prefix + ":scheduled");
        assertEquals(4, defaults);
        assertEquals(2, emails);
        assertEquals(3, delayed);

        ControlPlane.Result run = plugin("inspect", "shop-workers", "-n", namespace);
        assertEquals(0, run.exit(), run.err());
        assertTrue(
                run.out()
                        .lines()
                        .anyMatch(l -> l.matches("default\\s+" + defaults + "\\s+0\\s+0\\s+\\S+\\s+0\\s+-\\s*")),
                run.out());
        assertTrue(
                run.out()
                        .lines()
                        .anyMatch(l -> l.matches("emails\\s+" + emails + "\\s+0\\s+0\\s+\\S+\\s+" + delayed
                                + "\\s+\\S+ \\(in \\d+m\\)\\s*")),
                run.out());
        // The topology's consumer group reached the CLI (the notes name it).
        assertTrue(run.out().contains("group shop-workers missing"), run.out());

        ControlPlane.Result list = plugin("dead-letters", "list", "shop-workers", "--namespace", namespace);
        assertEquals(0, list.exit(), list.err());
        assertTrue(
                list.out().contains("0 dead letters on default") && list.out().contains("0 dead letters on emails"),
                list.out());
        assertOneLineError(
                plugin("dead-letters", "redrive", "shop-workers", "-n", namespace),
                2,
                "say which to redrive with --queue");
        assertOneLineError(
                plugin("inspect", "shop-workers", "-n", namespace, "--queue", "nope"),
                2,
                "queue 'nope' is not one of pool shop-workers's queues (default emails)");
    }

    @Test
    void givenATopologyOnTheRedisCluster_whenInspectedListedAndRedriven_thenEachStepMatchesTheShardsState() {
        // The topology names one node of the 6-node cluster of bin/lib.sh with a plain redis:// URL and says
        // spec.redis.mode: cluster, as for a managed configuration endpoint: the plugin passes the mode to the CLI.
        String clusterPrefix = UniqueNames.prefix("kbpc");
        cp.kubectl(
                        "create",
                        "secret",
                        "generic",
                        "cluster-redis",
                        "-n",
                        namespace,
                        "--from-literal=url=redis://127.0.0.1:7000")
                .orThrow();
        apply("""
                apiVersion: backstage.dev/v1alpha1
                kind: BackstageTopology
                metadata: {name: cluster-redis}
                spec:
                  provider: redis
                  connection: {secretName: cluster-redis, key: url}
                  keyPrefix: %s
                  redis: {mode: cluster, waitReplicas: 1}
                  queues: [{name: default}, {name: emails}]
                ---
                apiVersion: backstage.dev/v1alpha1
                kind: BackstageWorkerPool
                metadata: {name: cluster-workers}
                spec:
                  image: backstage-sample-tasks:0.1.0
                  topologyRef: {name: cluster-redis}
                  queues: [default, emails]
                """.formatted(clusterPrefix));
        String defaults = "{" + clusterPrefix + ":default}";
        String emails = "{" + clusterPrefix + ":emails}";
        var client = io.lettuce.core.cluster.RedisClusterClient.create(
                java.util.List.of(io.lettuce.core.RedisURI.create("127.0.0.1", 7000)));
        try (var cluster = client.connect()) {
            var redis = cluster.sync();
            try {
                ControlPlane.Result enqueued = plugin(
                        "enqueue",
                        "cluster-workers",
                        "processOrder",
                        "{\"orderId\":\"c1\"}",
                        "-n",
                        namespace,
                        "--queue",
                        "default",
                        "--count",
                        "3");
                assertEquals(0, enqueued.exit(), enqueued.err());
                assertEquals(3, redis.xlen(defaults), "on the shard of " + defaults);
                for (int i = 0; i < 2; i++) {
                    redis.xadd(
                            emails + ":dead-letter",
                            "taskName",
                            "sendReceipt",
                            "payload",
                            "{\"n\":" + i + "}",
                            "enqueuedAt",
                            "1",
                            "originalId",
                            "1-" + i,
                            "deliveryCount",
                            "6",
                            "deadLetteredAt",
                            "2",
                            "error",
                            "boom");
                }

                ControlPlane.Result run = plugin("inspect", "cluster-workers", "-n", namespace);
                assertEquals(0, run.exit(), run.err());
                assertTrue(run.out().lines().anyMatch(l -> l.matches("default\\s+3\\s+0\\s+0\\s+.*")), run.out());
                assertTrue(run.out().lines().anyMatch(l -> l.matches("emails\\s+0\\s+0\\s+2\\s+.*")), run.out());

                ControlPlane.Result list =
                        plugin("dead-letters", "list", "cluster-workers", "-n", namespace, "--queue", "emails");
                assertEquals(0, list.exit(), list.err());
                assertTrue(list.out().startsWith("2 dead letters on emails"), list.out());
                assertTrue(list.out().contains("error=boom"), list.out());

                ControlPlane.Result redrive =
                        plugin("dead-letters", "redrive", "cluster-workers", "-n", namespace, "--queue", "emails");
                assertEquals(0, redrive.exit(), redrive.err());
                assertEquals(0, redis.xlen(emails + ":dead-letter"), "the dead letters left their stream");
                assertEquals(2, redis.xlen(emails), "and are back on the queue in its slot");
                assertFalse(
                        (run.out() + list.out() + redrive.out()).contains("127.0.0.1:7000"), "the URL is never shown");
            } finally {
                redis.del(defaults, emails, emails + ":dead-letter");
            }
        } finally {
            client.shutdown();
        }
    }

    @Test
    void givenAPool_whenEnqueued_thenTheJobsAreWrittenWithItsTopologysPrefixOnThePoolQueue() {
        cp.kubectl("create", "secret", "generic", "enq-redis", "-n", namespace, "--from-literal=url=" + REDIS)
                .orThrow();
        topologyAndPool("enq-redis", "enq-redis", "enq-workers");

        ControlPlane.Result run = plugin(
                "enqueue",
                "enq-workers",
                "sendReceipt",
                "{\"orderId\":\"o9\"}",
                "-n",
                namespace,
                "--queue",
                "emails",
                "--count",
                "3");
        assertEquals(0, run.exit(), run.err());
        RedisCommands<String, String> redis = connection.sync();
        assertEquals(3, redis.xlen(prefix + ":emails"));
        assertTrue(
                redis.xrange(prefix + ":emails", io.lettuce.core.Range.create("-", "+")).stream()
                        .allMatch(m -> m.getBody().get("payload").contains("o9")),
                "the payload as given");
        assertFalse(run.out().contains(REDIS) || run.err().contains(REDIS), "the URL is never shown");
        assertOneLineError(
                plugin("enqueue", "enq-workers", "sendReceipt", "{}", "-n", namespace),
                2,
                "say which to enqueue on with --queue");
        assertOneLineError(
                plugin("enqueue", "enq-workers", "sendReceipt", "-n", namespace),
                2,
                "enqueue takes a pool, a task and a JSON payload");
    }

    @Test
    void givenWhatIsMissingOrForbidden_thenOneLineSaysWhichAndTheUrlIsNeverShown() {
        String secretUrl = "redis://:s3cret-token@127.0.0.1:1";
        cp.kubectl("create", "secret", "generic", "unreachable", "-n", namespace, "--from-literal=url=" + secretUrl)
                .orThrow();
        topologyAndPool("down", "unreachable", "down-workers");
        apply("""
                apiVersion: backstage.dev/v1alpha1
                kind: BackstageWorkerPool
                metadata: {name: orphan}
                spec:
                  image: backstage-sample-tasks:0.1.0
                  topologyRef: {name: missing-topology}
                  queues: [default]
                """);

        assertOneLineError(
                plugin("inspect", "no-such-pool", "-n", namespace),
                1,
                "'no-such-pool' not found in namespace " + namespace);
        assertOneLineError(
                plugin("inspect", "orphan", "-n", namespace),
                1,
                "topology missing-topology of pool orphan: backstagetopologies.backstage.dev 'missing-topology' not found");

        // A broker that does not answer: the CLI's one line, with the password masked.
        ControlPlane.Result down = plugin("inspect", "down-workers", "-n", namespace);
        assertEquals(3, down.exit(), down.err());
        assertEquals(1, down.err().strip().lines().count(), down.err());
        assertFalse((down.out() + down.err()).contains("s3cret-token"), down.err());

        // A user who may read pools and topologies but not Secrets: told which verb on which resource is missing.
        cp.kubectl("create", "serviceaccount", "reader", "-n", namespace).orThrow();
        cp.kubectl(
                        "create",
                        "role",
                        "pools-only",
                        "-n",
                        namespace,
                        "--verb=get",
                        "--resource=backstageworkerpools.backstage.dev,backstagetopologies.backstage.dev")
                .orThrow();
        cp.kubectl(
                        "create",
                        "rolebinding",
                        "reader-pools",
                        "-n",
                        namespace,
                        "--role=pools-only",
                        "--serviceaccount=" + namespace + ":reader")
                .orThrow();
        String reader = "--as=system:serviceaccount:" + namespace + ":reader";
        ControlPlane.Result forbidden = plugin("inspect", "down-workers", "-n", namespace, reader);
        assertOneLineError(
                forbidden,
                1,
                "connection Secret of topology down of pool down-workers: forbidden: User \"system:serviceaccount:"
                        + namespace + ":reader\" lack(s) the RBAC verb \"get\" on secrets 'unreachable'");
        assertFalse(forbidden.err().contains("s3cret-token"));
        ControlPlane.Result noPools = plugin("inspect", "down-workers", "-n", namespace, "--as=nobody");
        assertOneLineError(noPools, 1, "the RBAC verb \"get\" on backstageworkerpools.backstage.dev 'down-workers'");

        // console: a bad port, and a namespace without the operator's console Service, each one line.
        assertOneLineError(
                plugin("console", "--port", "70000"), 2, "--port must be a local port number from 1 to 65535");
        assertOneLineError(
                plugin("console", "-n", namespace), 1, "no console Service of the operator in namespace " + namespace);

        ControlPlane.Result help = plugin("--help");
        assertEquals(0, help.exit(), help.err());
        assertTrue(help.out().contains("kubectl backstage <command> <pool>"), help.out());
        assertTrue(help.out().contains("console [--port P]"), help.out());
    }

    @Test
    void givenTheOperatorsConsoleServiceAmongOthers_whenConsoleRuns_thenItForwardsToThatServicesConsolePort() {
        // The operator's Services as the chart names and labels them, plus a look-alike without the chart's label.
        apply("""
                apiVersion: v1
                kind: Service
                metadata: {name: shop-backstage-operator-metrics, labels: {app.kubernetes.io/name: backstage-operator}}
                spec: {ports: [{name: metrics, port: 8081}]}
                ---
                apiVersion: v1
                kind: Service
                metadata: {name: other-console}
                spec: {ports: [{name: console, port: 9999}]}
                ---
                apiVersion: v1
                kind: Service
                metadata: {name: shop-backstage-operator-console, labels: {app.kubernetes.io/name: backstage-operator}}
                spec: {ports: [{name: http, port: 80}, {name: console, port: 8082, targetPort: 8082}]}
                """);
        ControlPlane.Result run = plugin("console", "-n", namespace, "--port", "18082");
        // It says where to open the console, then hands over to kubectl port-forward on the console Service. Here
        // the Service selects no pod (the local control plane runs no operator pod for this test), so kubectl's own
        // refusal names the Service the plugin chose: the chart's console Service, not the look-alike.
        assertTrue(
                run.err()
                        .startsWith("console: http://127.0.0.1:18082/ (Ctrl-C stops the forward); sign in with a"
                                + " token"),
                run.err());
        assertTrue(run.err().contains("invalid service 'shop-backstage-operator-console'"), run.err());
        assertEquals(1, run.exit(), run.err());

        apply("""
                apiVersion: v1
                kind: Service
                metadata: {name: bare-backstage-operator-console, labels: {app.kubernetes.io/name: backstage-operator}}
                spec: {ports: [{name: http, port: 80}]}
                """);
        cp.kubectl("delete", "service", "shop-backstage-operator-console", "-n", namespace)
                .orThrow();
        assertOneLineError(
                plugin("console", "-n", namespace),
                1,
                "Service bare-backstage-operator-console has no port" + " named console");
    }
}
