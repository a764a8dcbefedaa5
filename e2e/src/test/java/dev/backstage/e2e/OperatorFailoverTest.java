package dev.backstage.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.e2e.cluster.LocalCluster;
import dev.backstage.e2e.node.NodeAgent;
import dev.backstage.e2e.sandbox.RealSandbox;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.operator.model.Conditions;
import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.core.CapabilitySet;
import dev.backstage.runtime.core.JobProducer;
import dev.backstage.runtime.core.PayloadCodec;
import dev.backstage.runtime.redis.RedisProvider;
import dev.backstage.runtime.redis.RedisSettings;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import dev.backstage.testsupport.ControlPlane;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The operator's high availability with the chart's defaults, on the real local cluster (kube-apiserver,
 * kube-controller-manager; pods run by the {@link NodeAgent}): two replicas, every ready one serving the admission
 * webhook, one leading through the Lease, a PodDisruptionBudget. A kill -9 of the leader does not refuse a single
 * spec change; the PDB allows one eviction and then no more disruption while that replica is gone; killed
 * mid-scale, a live replica leads again (the time is printed; the target is 15 s) and the autoscaling goes on.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("cluster")
@Tag("broker")
@Tag("slow")
class OperatorFailoverTest {
    private static final String REDIS = System.getenv().getOrDefault("BACKSTAGE_REDIS_URL", "redis://127.0.0.1:6379");
    private static final String LEASE = RealSandbox.RELEASE + "-leader";
    private static final int MAX_REPLICAS = 2;

    private static LocalCluster cluster;
    private static KubernetesClient client;

    @BeforeAll
    static void installTheChartWithItsDefaults() {
        cluster = LocalCluster.shared();
        client = cluster.client();
        log("helm upgrade --install with the chart's defaults");
        RealSandbox.installChart(cluster);
        await("two operator replicas Ready")
                .atMost(Duration.ofMinutes(3))
                .until(() -> readyOperators().size() == 2);
    }

    @Test
    @Order(1)
    void givenTheChartsDefaults_whenTheLeaderIsKilled_thenSpecChangesAreStillAdmittedAndThePdbCountsAnEviction()
            throws Exception {
        await("the PodDisruptionBudget to allow one disruption")
                .atMost(Duration.ofMinutes(1))
                .until(() -> disruptionsAllowed() == 1);
        String ns = namespace("ha-admission");
        cluster.kubectlWithInput(
                        secretYaml() + "---\n" + topologyYaml("orders", UniqueNames.prefix("ha")) + "---\n"
                                + poolYaml("workers", "replicas: 0"),
                        "apply",
                        "-n",
                        ns,
                        "-f",
                        "-")
                .orThrow();

        Pod leader = leaderPod();
        int restarts = restarts(leader);
        kill(leader);
        int patches = 0;
        List<String> refused = new ArrayList<>();
        // Spec changes, one after the other, until the killed replica is back and Ready: each goes through the
        // webhook (matchConditions: the spec changes), which only the other replica can answer meanwhile.
        while (!(restarts(pod(leader.getMetadata().getName())) > restarts
                && Conditions.TRUE.equals(ready(pod(leader.getMetadata().getName()))))) {
            ControlPlane.Result patch = cluster.kubectl(
                    "patch",
                    "bwp",
                    "workers",
                    "-n",
                    ns,
                    "--type",
                    "merge",
                    "-p",
                    "{\"spec\": {\"concurrency\": " + (1 + patches % 8) + "}}");
            patches++;
            if (patch.exit() != 0) {
                refused.add(patch.err().strip());
            }
            assertTrue(patches < 2_000, "the killed replica did not come back");
        }
        log(patches + " spec changes while the killed leader restarted, " + refused.size() + " refused");
        assertEquals(List.of(), refused, "spec changes refused while one replica was down");
        assertTrue(patches >= 2, "spec changes were made while the replica was down: " + patches);

        await("the PodDisruptionBudget to allow one disruption again")
                .atMost(Duration.ofMinutes(1))
                .until(() -> disruptionsAllowed() == 1);
        List<Pod> pods = readyOperators();
        assertTrue(client.pods().resource(pods.get(0)).evict(), "an eviction the budget allows");
        await("the PodDisruptionBudget to allow no more disruption")
                .atMost(Duration.ofMinutes(1))
                .until(() -> disruptionsAllowed() == 0);
        await("two operator replicas Ready after the eviction")
                .atMost(Duration.ofMinutes(3))
                .until(() -> readyOperators().size() == 2);
        removeTopologyAndNamespace(ns);
    }

    @Test
    @Order(2)
    void givenTwoReplicas_whenTheLeaderIsKilledMidScale_thenTheStandbyLeadsAndTheScalingGoesOnWithoutFlapping()
            throws Exception {
        String ns = namespace("ha-failover");
        String prefix = UniqueNames.prefix("failover");
        cluster.kubectlWithInput(
                        secretYaml() + "---\n" + topologyYaml("orders", prefix) + "---\n"
                                + poolYaml("workers", """
                autoscaling: {enabled: true, minReplicas: 0, maxReplicas: %d, pollInterval: 2s, scaleDownWindow: 15s,
                    targetBacklogPerReplica: 100, targetDrainTime: 10s}
                  env: [{name: BACKSTAGE_SAMPLE_WORK_MS, value: "20"}]""".formatted(MAX_REPLICAS)),
                        "apply",
                        "-n",
                        ns,
                        "-f",
                        "-")
                .orThrow();
        await("the idle pool at zero").atMost(Duration.ofMinutes(2)).until(() -> replicas(ns) == 0);
        List<Integer> history = watchReplicas(ns);

        enqueue(prefix, 3000);
        await("the scale-up to start").atMost(Duration.ofMinutes(2)).until(() -> replicas(ns) >= 1);
        Pod leader = leaderPod();
        long killed = System.nanoTime();
        java.time.Instant killedAt = java.time.Instant.now();
        kill(leader);
        // A live process leads again once the Lease is renewed after the kill: the standby, after the Lease expired,
        // or the killed pod's restarted container, which has the same identity and may find its Lease still its own.
        Lease renewed = await("a live replica to lead")
                .atMost(Duration.ofMinutes(1))
                .until(
                        () -> client.leases()
                                .inNamespace(RealSandbox.OPERATOR_NAMESPACE)
                                .withName(LEASE)
                                .get(),
                        l -> l != null
                                && l.getSpec().getRenewTime() != null
                                && l.getSpec().getRenewTime().toInstant().isAfter(killedAt));
        double seconds = (System.nanoTime() - killed) / 1e9;
        String next = renewed.getSpec().getHolderIdentity();
        System.out.printf(
                "[real-cluster] leader failover: %s leads %.1f s after kill -9 of %s (%s; target 15 s;"
                        + " the chart's Lease timing: %s)%n",
                next,
                seconds,
                leader.getMetadata().getName(),
                next.equals(leader.getMetadata().getName()) ? "its restarted container" : "the standby",
                leaseTiming());

        // The pool's pods drain the backlog, helped by a worker in this JVM in the same consumer group: on a
        // loaded 2-core machine the pods' JVMs may not pass their startup probe for minutes, and what is under test
        // here is the operator's decisions, not how fast a pod starts.
        try (Worker helper = Worker.builder()
                .provider(RedisProvider.connect(
                        RedisSettings.of(REDIS).withPrefix(prefix).withGroup("shop-workers")))
                .queues("default")
                .concurrency(20)
                .build()) {
            helper.register("processOrder", java.util.Map.class, (ctx, order) -> Next.done());
            helper.register("sendReceipt", java.util.Map.class, (ctx, receipt) -> Next.done());
            helper.start();
            await("the drain").atMost(Duration.ofMinutes(4)).until(() -> drained(ns));
            await("the scale-down to zero by the new leader")
                    .atMost(Duration.ofMinutes(3))
                    .until(() -> replicas(ns) == 0);
        }
        log("replicas, as the Deployment's spec went: " + history);
        assertTrue(
                history.stream().allMatch(r -> r >= 0 && r <= MAX_REPLICAS),
                "within 0.." + MAX_REPLICAS + ": " + history);
        int top = history.indexOf(history.stream().max(Integer::compare).orElseThrow());
        assertTrue(history.get(top) >= 1, "it scaled up: " + history);
        for (int i = top + 1; i < history.size(); i++) {
            assertTrue(history.get(i) <= history.get(i - 1), "no scale-up after the scale-down began: " + history);
        }
        BackstageWorkerPool pool = client.resources(BackstageWorkerPool.class)
                .inNamespace(ns)
                .withName("workers")
                .get();
        assertEquals(0, pool.getStatus().getDesiredReplicas(), "status agrees with the Deployment");
        removeTopologyAndNamespace(ns);
    }

    // --- steps --------------------------------------------------------------------------------------------------

    /** The topology first (deletionPolicy: delete: the operator removes its streams from the shared Redis). */
    private static void removeTopologyAndNamespace(String ns) {
        cluster.kubectl("delete", "bwp", "--all", "-n", ns, "--timeout=60s");
        cluster.kubectl("delete", "btp", "orders", "-n", ns, "--timeout=60s").orThrow();
        cluster.kubectl("delete", "namespace", ns, "--wait=false");
    }

    private static void enqueue(String prefix, int orders) throws Exception {
        try (Provider p = Providers.create(new ProviderSettings("redis", REDIS, prefix, "shop-workers", null))) {
            JobProducer producer = new JobProducer(new CapabilitySet(p, null, null, null), PayloadCodec.defaults());
            IntStream.range(0, orders)
                    .parallel()
                    .forEach(i -> producer.enqueue(
                            "processOrder",
                            new dev.backstage.examples.orders.Order("o-" + i, i, "visa"),
                            EnqueueOptions.defaults()));
        }
        log("enqueued " + orders + " orders");
    }

    private static void kill(Pod pod) {
        String id = pod.getStatus().getContainerStatuses().get(0).getContainerID();
        long pid = Long.parseLong(id.substring(NodeAgent.CONTAINER_ID_SCHEME.length()));
        log("kill -9 of " + pod.getMetadata().getName() + " (pid " + pid + ")");
        assertTrue(ProcessHandle.of(pid).map(ProcessHandle::destroyForcibly).orElse(false), "SIGKILL to pid " + pid);
    }

    /** Every value spec.replicas of the pool's Deployment takes from now on, in order (from a watch). */
    private static List<Integer> watchReplicas(String ns) {
        List<Integer> history = new CopyOnWriteArrayList<>();
        client.apps().deployments().inNamespace(ns).withName("workers").inform(new ResourceEventHandler<Deployment>() {
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
                // the history stays
            }

            private synchronized void record(Deployment d) {
                Integer r = d.getSpec().getReplicas();
                if (r != null
                        && (history.isEmpty()
                                || !history.get(history.size() - 1).equals(r))) {
                    history.add(r);
                }
            }
        });
        return history;
    }

    /** The Lease settings the chart gave the operator, as its container's environment says them. */
    private static String leaseTiming() {
        Deployment operator = client.apps()
                .deployments()
                .inNamespace(RealSandbox.OPERATOR_NAMESPACE)
                .withName(RealSandbox.RELEASE)
                .get();
        return operator.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv().stream()
                .filter(e -> e.getName().startsWith("BACKSTAGE_LEASE_")
                        && e.getValue() != null
                        && !e.getName().equals("BACKSTAGE_LEASE_NAME"))
                .map(e -> e.getName().substring("BACKSTAGE_LEASE_".length()).toLowerCase(java.util.Locale.ROOT) + " "
                        + e.getValue())
                .collect(java.util.stream.Collectors.joining(", "));
    }

    private static boolean drained(String ns) {
        BackstageWorkerPool p = client.resources(BackstageWorkerPool.class)
                .inNamespace(ns)
                .withName("workers")
                .get();
        BackstageWorkerPoolStatus s = p == null ? null : p.getStatus();
        return s != null
                && s.getBacklog() != null
                && s.getBacklog().getOutstanding() != null
                && s.getBacklog().getOutstanding() == 0;
    }

    private static int replicas(String ns) {
        Deployment d =
                client.apps().deployments().inNamespace(ns).withName("workers").get();
        return d == null || d.getSpec().getReplicas() == null ? -1 : d.getSpec().getReplicas();
    }

    private static int disruptionsAllowed() {
        PodDisruptionBudget pdb = client.policy()
                .v1()
                .podDisruptionBudget()
                .inNamespace(RealSandbox.OPERATOR_NAMESPACE)
                .withName(RealSandbox.RELEASE)
                .get();
        return pdb == null || pdb.getStatus() == null ? -1 : pdb.getStatus().getDisruptionsAllowed();
    }

    private static String holder() {
        Lease lease = client.leases()
                .inNamespace(RealSandbox.OPERATOR_NAMESPACE)
                .withName(LEASE)
                .get();
        return lease == null ? null : lease.getSpec().getHolderIdentity();
    }

    private static Pod leaderPod() {
        String name =
                await("a leader").atMost(Duration.ofMinutes(1)).until(OperatorFailoverTest::holder, h -> h != null);
        Pod pod = pod(name);
        assertNotEquals(null, pod, "the Lease's holder is a pod: " + name);
        return pod;
    }

    private static Pod pod(String name) {
        return client.pods()
                .inNamespace(RealSandbox.OPERATOR_NAMESPACE)
                .withName(name)
                .get();
    }

    private static List<Pod> readyOperators() {
        return client
                .pods()
                .inNamespace(RealSandbox.OPERATOR_NAMESPACE)
                .withLabel("app.kubernetes.io/name", "backstage-operator")
                .list()
                .getItems()
                .stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null && Conditions.TRUE.equals(ready(p)))
                .toList();
    }

    private static String ready(Pod pod) {
        return pod == null || pod.getStatus() == null || pod.getStatus().getConditions() == null
                ? null
                : pod.getStatus().getConditions().stream()
                        .filter(c -> "Ready".equals(c.getType()))
                        .map(c -> c.getStatus())
                        .findFirst()
                        .orElse(null);
    }

    private static int restarts(Pod pod) {
        return pod == null
                        || pod.getStatus() == null
                        || pod.getStatus().getContainerStatuses() == null
                        || pod.getStatus().getContainerStatuses().isEmpty()
                ? 0
                : pod.getStatus().getContainerStatuses().get(0).getRestartCount();
    }

    private static String namespace(String what) {
        String ns = UniqueNames.prefix("e2e-" + what);
        cluster.kubectl("create", "namespace", ns).orThrow();
        return ns;
    }

    private static String secretYaml() {
        return "apiVersion: v1\nkind: Secret\nmetadata: {name: broker}\nstringData: {url: \"" + REDIS + "\"}\n";
    }

    private static String topologyYaml(String name, String prefix) {
        return """
                apiVersion: backstage.dev/v1alpha1
                kind: BackstageTopology
                metadata: {name: %s}
                spec:
                  provider: redis
                  connection: {secretName: broker, key: url}
                  keyPrefix: %s
                  consumerGroup: shop-workers
                  queues: [{name: default}]
                  deadLetter: true
                  deletionPolicy: delete
                """.formatted(name, prefix);
    }

    private static String poolYaml(String name, String extra) {
        return """
                apiVersion: backstage.dev/v1alpha1
                kind: BackstageWorkerPool
                metadata: {name: %s}
                spec:
                  image: backstage-sample-tasks:0.1.0
                  topologyRef: {name: orders}
                  queues: [default]
                  %s
                """.formatted(name, extra);
    }

    private static org.awaitility.core.ConditionFactory await(String what) {
        log("waiting for " + what);
        return org.awaitility.Awaitility.await(what).pollInterval(Duration.ofMillis(500));
    }

    private static void log(String message) {
        System.out.println("[real-cluster] " + message);
    }
}
