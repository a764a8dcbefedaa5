package dev.backstage.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.e2e.cluster.LocalCluster;
import dev.backstage.e2e.node.NodeAgent;
import dev.backstage.e2e.sandbox.RealSandbox;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.operator.model.Conditions;
import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.core.CapabilitySet;
import dev.backstage.runtime.core.JobProducer;
import dev.backstage.runtime.core.PayloadCodec;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import dev.backstage.testsupport.ControlPlane;
import dev.backstage.testsupport.EmbeddedKafka;
import dev.backstage.testsupport.RabbitMqQueues;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * What users do, on the real local cluster ({@code bin/control-plane}: kube-apiserver, etcd,
 * kube-controller-manager; pods run by the {@link NodeAgent}), with the real {@code helm} and {@code kubectl}:
 * install the chart (the operator runs as a Pod under the chart's ServiceAccount, so RBAC is real), have the API
 * server call the admission webhook through the chart's Service and caBundle, apply {@code examples/manifests/}
 * for Redis, RabbitMQ and Kafka (only the connection URLs, the key prefix and, for the one-broker Kafka, the
 * replication factor are rewritten), watch a pool scale from zero on backlog and report its dead letters in
 * {@code kubectl get bwp}, kill -9 the operator mid-scenario, and garbage-collect on deletion. Ordered: one
 * scenario, steps in sequence.
 */
@Tag("cluster")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealClusterScenarioTest {
    private static final String OPERATOR_SA =
            "system:serviceaccount:" + RealSandbox.OPERATOR_NAMESPACE + ":" + RealSandbox.RELEASE;
    private static final String REDIS = System.getenv().getOrDefault("BACKSTAGE_REDIS_URL", "redis://127.0.0.1:6379");
    private static final String RABBITMQ =
            System.getenv().getOrDefault("BACKSTAGE_RABBITMQ_URL", "amqp://guest:guest@127.0.0.1:5672");
    private static final int ORDERS = 3000;

    private static LocalCluster cluster;
    private static KubernetesClient client;

    @BeforeAll
    static void installTheChart() {
        cluster = LocalCluster.shared();
        client = cluster.client();
        log("Kubernetes " + client.getKubernetesVersion().getGitVersion() + ": helm upgrade --install the chart");
        RealSandbox.installChart(cluster);
    }

    @Test
    @Order(1)
    void givenTheChart_whenInstalled_thenTheOperatorRunsUnderItsServiceAccountWithOnlyTheRightsItUses() {
        Pod operator = operatorPod();
        assertEquals(RealSandbox.RELEASE, operator.getSpec().getServiceAccountName());
        assertTrue(Conditions.TRUE.equals(ready(operator)), "operator pod Ready");
        assertEquals("yes", canI("get", "secrets", "-n", "default"));
        assertEquals("no", canI("list", "secrets", "--all-namespaces"));
        assertEquals("no", canI("watch", "secrets", "--all-namespaces"));
        assertEquals("no", canI("create", "secrets", "-n", "default"));
        assertEquals("yes", canI("patch", "leases", "-n", RealSandbox.OPERATOR_NAMESPACE));
        assertEquals("no", canI("delete", "pods", "-n", "default"));
    }

    @Test
    @Order(2)
    void
            givenTheWebhook_whenABadPoolIsApplied_thenTheApiServerDeniesItWithTheFixWarnsOnAWastefulOneAndLetsSpecKeepingUpdatesThrough() {
        String ns = namespace("webhook");
        apply(ns, topologyYaml("orders", "redis", "webhook", "delete"));
        ControlPlane.Result denied = cluster.kubectlWithInput(
                poolYaml("bad", "orders", "[default, emails]", ""), "apply", "-n", ns, "-f", "-");
        assertNotEquals(0, denied.exit(), denied.out());
        assertTrue(
                denied.err().contains("admission webhook")
                        && denied.err().contains("queue 'emails' is not declared by" + " BackstageTopology 'orders'"),
                denied.err());
        ControlPlane.Result warned = cluster.kubectlWithInput(
                poolYaml("wasteful", "orders", "[default]", "concurrency: 8\n  prefetch: 2"),
                "apply",
                "-n",
                ns,
                "-f",
                "-");
        assertEquals(0, warned.exit(), warned.err());
        assertTrue(warned.err().contains("Warning: spec.prefetch (2) is below spec.concurrency (8)"), warned.err());

        // Its topology gone, the pool's spec no longer fits: a spec change is denied, but an update that keeps the
        // spec (a label here; a finalizer, a GitOps tool's annotation) does not reach the webhook (matchConditions).
        cluster.kubectl("delete", "btp", "orders", "-n", ns, "--timeout=60s").orThrow();
        ControlPlane.Result specChange = cluster.kubectl(
                "patch", "bwp", "wasteful", "-n", ns, "--type", "merge", "-p", "{\"spec\": {\"concurrency\": 4}}");
        assertNotEquals(0, specChange.exit(), specChange.out());
        assertTrue(specChange.err().contains("BackstageTopology 'orders' not found"), specChange.err());
        ControlPlane.Result label = cluster.kubectl("label", "bwp", "wasteful", "-n", ns, "team=search");
        assertEquals(0, label.exit(), label.err());
        assertEquals(
                "search",
                cluster.kubectl("get", "bwp", "wasteful", "-n", ns, "-o", "jsonpath={.metadata.labels.team}")
                        .orThrow()
                        .out()
                        .trim());
        cluster.kubectl("delete", "namespace", ns, "--wait=false");
    }

    @Test
    @Order(3)
    void givenTheRedisExample_whenABacklogArrives_thenThePoolScalesFromZeroSurvivesAnOperatorKillAndReportsDeadLetters()
            throws Exception {
        String ns = namespace("redis");
        String prefix = UniqueNames.prefix("redis");
        applyExample(
                "redis.yaml",
                ns,
                Map.of(
                        "redis://:CHANGE-ME@redis.shop.svc.cluster.local:6379/0",
                        REDIS,
                        "keyPrefix: shop",
                        "keyPrefix: " + prefix));
        // Sized for a 2-core machine: at most 3 replicas, 20 ms of work per task, a short scale-down window.
        cluster.kubectl("patch", "bwp", "shop-workers", "-n", ns, "--type", "merge", "-p", """
                {"spec": {"autoscaling": {"maxReplicas": 3, "scaleDownWindow": "15s", "pollInterval": "2s"},
                  "env": [{"name": "BACKSTAGE_SAMPLE_WORK_MS", "value": "20"}]}}""")
                .orThrow();
        await("topology Ready and the idle pool at zero")
                .atMost(Duration.ofMinutes(2))
                .until(() -> topologyReady(ns, "shop-redis") && deploymentReplicas(ns, "shop-workers") == 0);

        AtomicInteger peak = watchPeak(ns, "shop-workers");
        int declined = enqueue("redis", REDIS, prefix, "shop-workers", ORDERS);
        await("the pool to scale up from zero on backlog")
                .atMost(Duration.ofMinutes(2))
                .until(() -> peak.get() >= 2);
        log("redis: scaled to " + peak.get() + "; kill -9 of the operator");
        killOperator();
        await("the drain, with " + declined + " dead letters in status")
                .atMost(Duration.ofMinutes(5))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> drained(ns, "shop-workers", declined));

        assertDeadLettersColumn(ns, "shop-workers", declined);
        try (RedisStreams streams = new RedisStreams()) {
            Map<String, Integer> receipts = streams.receiptsPerOrder(prefix + ":default");
            assertEquals(ORDERS - declined, receipts.size(), "every order but the declined ones sent its receipt");
        }
        assertEquals(
                1, client.apps().deployments().inNamespace(ns).list().getItems().size(), "one Deployment");
        assertEquals(
                1,
                client.configMaps()
                        .inNamespace(ns)
                        .withLabel("app.kubernetes.io/managed-by")
                        .list()
                        .getItems()
                        .size(),
                "one runtime ConfigMap");
        assertTrue(
                !client.apps().replicaSets().inNamespace(ns).list().getItems().isEmpty(), "ReplicaSets");

        await("the scale-down to zero")
                .atMost(Duration.ofMinutes(3))
                .until(() -> deploymentReplicas(ns, "shop-workers") == 0);
        cluster.kubectl("delete", "bwp", "shop-workers", "-n", ns).orThrow();
        await("the Deployment and ConfigMap garbage-collected")
                .atMost(Duration.ofMinutes(1))
                .until(() -> client.apps()
                                        .deployments()
                                        .inNamespace(ns)
                                        .withName("shop-workers")
                                        .get()
                                == null
                        && client.configMaps()
                                        .inNamespace(ns)
                                        .withName("shop-workers-runtime-config")
                                        .get()
                                == null);
    }

    @Test
    @Order(4)
    void givenTheRabbitMqExample_whenAutoscalingIsTurnedOn_thenThePoolScalesOnBacklogAndReportsDeadLetters()
            throws Exception {
        String ns = namespace("rabbitmq");
        String prefix = UniqueNames.prefix("rabbit");
        applyExample(
                "rabbitmq.yaml",
                ns,
                Map.of(
                        "amqp://backstage:CHANGE-ME@rabbitmq.shop.svc.cluster.local:5672/%2F",
                        RABBITMQ + "/%2F", "keyPrefix: shop", "keyPrefix: " + prefix));
        await("the RabbitMQ pool's 2 fixed workers Ready")
                .atMost(Duration.ofMinutes(2))
                .until(() -> topologyReady(ns, "shop-rabbitmq") && readyReplicas(ns, "shop-rabbitmq-workers") == 2);
        // The example runs a fixed size; a user turns autoscaling on (at most 3 replicas on this machine), and each
        // task works 200 ms, so that 2,000 orders outlast two replicas (10 handlers each) by ~20 s.
        cluster.kubectl("patch", "bwp", "shop-rabbitmq-workers", "-n", ns, "--type", "merge", "-p", """
                {"spec": {"autoscaling": {"enabled": true, "minReplicas": 1, "maxReplicas": 3, "pollInterval": "2s",
                  "targetBacklogPerReplica": 100, "targetDrainTime": "10s"}, "env": [{"name": "BACKSTAGE_SAMPLE_WORK_MS", "value": "200"}]}}""")
                .orThrow();
        rolledOut(ns, "shop-rabbitmq-workers");
        AtomicInteger peak = watchPeak(ns, "shop-rabbitmq-workers");
        int declined = enqueue("rabbitmq", RABBITMQ, prefix, "shop-workers", 2000);
        await("the pool to scale past its 2 replicas on backlog")
                .atMost(Duration.ofMinutes(2))
                .until(() -> peak.get() >= 3);
        await("the drain").atMost(Duration.ofMinutes(3)).until(() -> drained(ns, "shop-rabbitmq-workers", declined));
        assertDeadLettersColumn(ns, "shop-rabbitmq-workers", declined);
        // A user cleaning up: the pool first, and its pods gone (a running worker declares its queue again when it
        // is deleted under it), then the topology switched to deletionPolicy: delete, which removes what it declared.
        cluster.kubectl("delete", "bwp", "shop-rabbitmq-workers", "-n", ns, "--timeout=60s")
                .orThrow();
        await("the pool's pods gone")
                .atMost(Duration.ofMinutes(2))
                .until(() -> client.pods().inNamespace(ns).list().getItems().stream()
                        .noneMatch(p -> p.getMetadata().getName().startsWith("shop-rabbitmq-workers")));
        cluster.kubectl(
                        "patch",
                        "btp",
                        "shop-rabbitmq",
                        "-n",
                        ns,
                        "--type",
                        "merge",
                        "-p",
                        "{\"spec\": {\"deletionPolicy\": \"delete\"}}")
                .orThrow();
        cluster.kubectl("delete", "btp", "shop-rabbitmq", "-n", ns, "--timeout=60s")
                .orThrow();
        RabbitMqQueues queues = new RabbitMqQueues(RABBITMQ);
        Set<String> left = queues.names(prefix);
        queues.deleteQueuesAndExchanges(prefix); // whatever the assertion finds, the shared broker keeps none of it
        assertEquals(Set.of(), left, "queues of the deleted topology left on the broker");
        cluster.kubectl("delete", "namespace", ns, "--wait=false");
    }

    @Test
    @Order(5)
    void givenTheKafkaExampleWithRedisDelays_whenLagGrows_thenThePoolScalesAndReportsDeadLetters() throws Exception {
        String ns = namespace("kafka");
        String prefix = UniqueNames.prefix("kafka");
        String bootstrap = EmbeddedKafka.shared().bootstrapServers();
        Map<String, String> rewrite = new LinkedHashMap<>();
        rewrite.put("kafka-bootstrap.kafka.svc.cluster.local:9092", bootstrap);
        rewrite.put("redis://:CHANGE-ME@redis.shop.svc.cluster.local:6379/1", REDIS);
        rewrite.put("keyPrefix: shop", "keyPrefix: " + prefix);
        rewrite.put("replicationFactor: 3", "replicationFactor: 1"); // one broker here
        rewrite.put("minInsyncReplicas: 2", "minInsyncReplicas: 1");
        applyExample("kafka.yaml", ns, rewrite);
        await("the Kafka pool's first worker Ready")
                .atMost(Duration.ofMinutes(2))
                .until(() -> topologyReady(ns, "shop-kafka") && readyReplicas(ns, "shop-kafka-workers") >= 1);
        cluster.kubectl("patch", "bwp", "shop-kafka-workers", "-n", ns, "--type", "merge", "-p", """
                {"spec": {"autoscaling": {"maxReplicas": 3, "pollInterval": "2s", "targetBacklogPerReplica": 100,
                  "targetDrainTime": "10s"},
                  "env": [{"name": "BACKSTAGE_SAMPLE_WORK_MS", "value": "1000"}]}}""")
                .orThrow();
        rolledOut(ns, "shop-kafka-workers");
        AtomicInteger peak = watchPeak(ns, "shop-kafka-workers");
        // 1 s of work per task: one replica's 50 handlers settle 50 a second, slower than the orders arrive.
        int declined = enqueue("kafka", bootstrap, prefix, "shop-workers", 2000);
        await("the pool to scale up on consumer lag")
                .atMost(Duration.ofMinutes(2))
                .until(() -> peak.get() >= 2);
        await("the drain").atMost(Duration.ofMinutes(4)).until(() -> drained(ns, "shop-kafka-workers", declined));
        assertDeadLettersColumn(ns, "shop-kafka-workers", declined);
        cluster.kubectl("delete", "namespace", ns, "--wait=false");
    }

    @Test
    @Order(6)
    void givenATopologyWithDeletionPolicyDelete_whenDeleted_thenItsBrokerObjectsAreRemoved() throws Exception {
        String ns = namespace("deletion");
        String prefix = UniqueNames.prefix("deletion");
        apply(ns, "apiVersion: v1\nkind: Secret\nmetadata: {name: broker}\nstringData: {url: \"" + REDIS + "\"}\n");
        apply(ns, topologyYaml("doomed", "redis", prefix, "delete"));
        await("topology Ready").atMost(Duration.ofMinutes(1)).until(() -> topologyReady(ns, "doomed"));
        try (RedisStreams streams = new RedisStreams()) {
            assertEquals(1L, streams.redis().exists(prefix + ":default"), "the stream exists on Redis");
            cluster.kubectl("delete", "btp", "doomed", "-n", ns, "--timeout=60s")
                    .orThrow();
            assertEquals(0L, streams.redis().exists(prefix + ":default"), "the stream is gone once the topology is");
        }
        cluster.kubectl("delete", "namespace", ns, "--wait=false");
    }

    @Test
    @Order(7)
    void givenTheWholeScenario_whenTheOperatorsLogIsRead_thenNothingWasForbidden() throws Exception {
        Pod operator = operatorPod();
        Path log = cluster.node()
                .podDir(
                        operator.getMetadata().getNamespace(),
                        operator.getMetadata().getName())
                .resolve("pod.log");
        // RBAC's refusals read 'is forbidden: User "system:serviceaccount:…" cannot VERB resource …'.
        List<String> denied = Files.readAllLines(log).stream()
                .filter(l -> l.contains("forbidden: User")
                        || l.contains("cannot get resource")
                        || l.contains("cannot list resource"))
                .map(l -> l.length() > 300 ? l.substring(0, 300) + "…" : l)
                .distinct()
                .limit(5)
                .toList();
        assertEquals(List.of(), denied, "RBAC denials in " + log);
    }

    // --- steps --------------------------------------------------------------------------------------------------

    private static String namespace(String what) {
        String ns = UniqueNames.prefix("e2e-" + what);
        cluster.kubectl("create", "namespace", ns).orThrow();
        return ns;
    }

    private static void apply(String ns, String yaml) {
        cluster.kubectlWithInput(yaml, "apply", "-n", ns, "-f", "-").orThrow();
    }

    /** {@code kubectl apply -f examples/manifests/FILE} with the given text replaced (each must occur). */
    private static void applyExample(String file, String ns, Map<String, String> replacements) throws Exception {
        String yaml =
                Files.readString(cluster.root().resolve("examples/manifests").resolve(file));
        for (Map.Entry<String, String> r : replacements.entrySet()) {
            assertTrue(yaml.contains(r.getKey()), file + " no longer contains " + r.getKey());
            yaml = yaml.replace(r.getKey(), r.getValue());
        }
        log("kubectl apply -n " + ns + " -f examples/manifests/" + file);
        apply(ns, yaml);
    }

    /** Enqueues {@code orders} orders, 1 in 100 with a declined card; returns how many will be dead-lettered. */
    private static int enqueue(String provider, String url, String prefix, String group, int orders) throws Exception {
        try (Provider p = Providers.create(new ProviderSettings(provider, url, prefix, group, null))) {
            JobProducer producer = new JobProducer(new CapabilitySet(p, null, null, null), PayloadCodec.defaults());
            IntStream.range(0, orders)
                    .parallel()
                    .forEach(i -> producer.enqueue(
                            "processOrder",
                            new dev.backstage.examples.orders.Order("o-" + i, i, i % 100 == 0 ? "declined" : "visa"),
                            EnqueueOptions.defaults()));
        }
        log(provider + ": enqueued " + orders + " orders");
        return (orders + 99) / 100;
    }

    /** {@code kubectl rollout status}: the patched pod template runs everywhere (no old pod drains the jobs). */
    private static void rolledOut(String ns, String deployment) {
        log("kubectl rollout status deployment/" + deployment);
        cluster.kubectl("rollout", "status", "deployment/" + deployment, "-n", ns, "--timeout=180s")
                .orThrow();
    }

    /** {@code kubectl get bwp}: the pool's row shows its dead letters in the DEADLETTERS column. */
    private static void assertDeadLettersColumn(String ns, String pool, int deadLetters) {
        String table = cluster.kubectl("get", "bwp", pool, "-n", ns).orThrow().out();
        log("kubectl get bwp -n " + ns + "\n" + table);
        List<String> header =
                List.of(table.lines().findFirst().orElseThrow().trim().split("\\s+"));
        List<String> row =
                List.of(table.lines().skip(1).findFirst().orElseThrow().trim().split("\\s+"));
        assertEquals(pool, row.get(0));
        assertEquals(
                Integer.toString(deadLetters), row.get(header.indexOf("DEADLETTERS")), "DEADLETTERS column: " + table);
    }

    private static void killOperator() {
        Pod before = operatorPod();
        String id = before.getStatus().getContainerStatuses().get(0).getContainerID();
        long pid = Long.parseLong(id.substring(NodeAgent.CONTAINER_ID_SCHEME.length()));
        assertTrue(ProcessHandle.of(pid).map(ProcessHandle::destroyForcibly).orElse(false), "SIGKILL to pid " + pid);
        int restarts = restarts(before);
        String name = before.getMetadata().getName();
        // A deadline, not a figure: at load 30 on 2 cores the restarted JVM took 2 min to Ready (the node agent's
        // restart back-off, then 37 s to its health server and 52 s more to the webhook).
        await("the operator's container to restart and be Ready")
                .atMost(Duration.ofMinutes(5))
                .until(() -> {
                    Pod now = client.pods()
                            .inNamespace(RealSandbox.OPERATOR_NAMESPACE)
                            .withName(name)
                            .get();
                    return now != null && restarts(now) > restarts && Conditions.TRUE.equals(ready(now));
                });
    }

    /** The highest spec.replicas the pool's Deployment has had since now, from a watch (no polling). */
    private static AtomicInteger watchPeak(String ns, String pool) {
        AtomicInteger peak = new AtomicInteger();
        client.apps().deployments().inNamespace(ns).withName(pool).inform(new ResourceEventHandler<Deployment>() {
            @Override
            public void onAdd(Deployment d) {
                record(d);
            }

            @Override
            public void onUpdate(Deployment before, Deployment d) {
                record(d);
            }

            @Override
            public void onDelete(Deployment d, boolean unknownFinalState) {
                // the peak stays
            }

            private void record(Deployment d) {
                if (d.getSpec().getReplicas() != null) {
                    peak.accumulateAndGet(d.getSpec().getReplicas(), Math::max);
                }
            }
        });
        return peak;
    }

    private static boolean drained(String ns, String pool, int declined) {
        BackstageWorkerPool p = client.resources(BackstageWorkerPool.class)
                .inNamespace(ns)
                .withName(pool)
                .get();
        BackstageWorkerPoolStatus s = p == null ? null : p.getStatus();
        return s != null
                && s.getBacklog() != null
                && s.getBacklog().getOutstanding() != null
                && s.getBacklog().getOutstanding() == 0
                && s.getDeadLetters() != null
                && s.getDeadLetters().getTotal() != null
                && s.getDeadLetters().getTotal() == declined;
    }

    private static boolean topologyReady(String ns, String name) {
        BackstageTopology t = client.resources(BackstageTopology.class)
                .inNamespace(ns)
                .withName(name)
                .get();
        return t != null
                && t.getStatus() != null
                && Conditions.isTrue(t.getStatus().getConditions(), Conditions.READY);
    }

    private static int deploymentReplicas(String ns, String name) {
        var d = client.apps().deployments().inNamespace(ns).withName(name).get();
        return d == null || d.getSpec().getReplicas() == null ? -1 : d.getSpec().getReplicas();
    }

    private static int readyReplicas(String ns, String name) {
        var d = client.apps().deployments().inNamespace(ns).withName(name).get();
        return d == null || d.getStatus() == null || d.getStatus().getReadyReplicas() == null
                ? 0
                : d.getStatus().getReadyReplicas();
    }

    /** The operator pod that leads (holds the Lease). */
    private static Pod operatorPod() {
        List<Pod> pods = new ArrayList<>(client.pods()
                .inNamespace(RealSandbox.OPERATOR_NAMESPACE)
                .withLabel("app.kubernetes.io/name", "backstage-operator")
                .list()
                .getItems());
        pods.removeIf(p -> p.getMetadata().getDeletionTimestamp() != null);
        // The chart runs two replicas; the one holding the Lease reconciles (and is the one to kill).
        var lease = client.leases()
                .inNamespace(RealSandbox.OPERATOR_NAMESPACE)
                .withName(RealSandbox.RELEASE + "-leader")
                .get();
        String holder = lease == null ? null : lease.getSpec().getHolderIdentity();
        return pods.stream()
                .filter(p -> p.getMetadata().getName().equals(holder))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no operator pod holds the Lease (holder " + holder + ")"));
    }

    private static String ready(Pod pod) {
        return pod.getStatus() == null || pod.getStatus().getConditions() == null
                ? null
                : pod.getStatus().getConditions().stream()
                        .filter(c -> "Ready".equals(c.getType()))
                        .map(c -> c.getStatus())
                        .findFirst()
                        .orElse(null);
    }

    private static int restarts(Pod pod) {
        return pod.getStatus() == null
                        || pod.getStatus().getContainerStatuses() == null
                        || pod.getStatus().getContainerStatuses().isEmpty()
                ? 0
                : pod.getStatus().getContainerStatuses().get(0).getRestartCount();
    }

    private static String canI(String verb, String resource, String... scope) {
        List<String> args = new ArrayList<>(List.of("auth", "can-i", verb, resource, "--as", OPERATOR_SA));
        args.addAll(List.of(scope));
        return cluster.kubectl(args.toArray(String[]::new)).out().strip();
    }

    private static String topologyYaml(String name, String provider, String prefix, String deletionPolicy) {
        return """
                apiVersion: backstage.dev/v1alpha1
                kind: BackstageTopology
                metadata: {name: %s}
                spec:
                  provider: %s
                  connection: {secretName: broker, key: url}
                  keyPrefix: %s
                  queues: [{name: default}]
                  deadLetter: true
                  deletionPolicy: %s
                """.formatted(name, provider, prefix, deletionPolicy);
    }

    private static String poolYaml(String name, String topology, String queues, String extra) {
        return """
                apiVersion: backstage.dev/v1alpha1
                kind: BackstageWorkerPool
                metadata: {name: %s}
                spec:
                  image: backstage-sample-tasks:0.1.0
                  topologyRef: {name: %s}
                  queues: %s
                  %s
                """.formatted(name, topology, queues, extra);
    }

    private static org.awaitility.core.ConditionFactory await(String what) {
        log("waiting for " + what);
        return org.awaitility.Awaitility.await(what).pollInterval(Duration.ofMillis(500));
    }

    private static void log(String message) {
        System.out.println("[real-cluster] " + message);
    }
}
