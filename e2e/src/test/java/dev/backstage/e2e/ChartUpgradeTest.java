package dev.backstage.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.e2e.cluster.LocalCluster;
import dev.backstage.e2e.sandbox.RealSandbox;
import dev.backstage.examples.orders.Order;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.Conditions;
import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.core.CapabilitySet;
import dev.backstage.runtime.core.JobProducer;
import dev.backstage.runtime.core.PayloadCodec;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import dev.backstage.testsupport.ControlPlane;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code helm upgrade} from the chart and CRDs of a pinned earlier commit ({@link #PINNED}: the chart generated the
 * webhook certificate at render time) to this tree's, with a live topology and pool and jobs flowing: the worker pod
 * is not restarted (its template does not change), the topology and pool stay Ready, every job enqueued before and
 * after is done, the webhook still denies a bad pool. The operator's code is this tree's on both sides (the node
 * runs images from this build): what is upgraded is the chart and the CRDs. Then {@code helm uninstall} returns
 * within its timeout, and a retained topology is deleted at once afterwards (it carries no finalizer).
 */
@Tag("cluster")
@Tag("broker")
@Tag("slow")
class ChartUpgradeTest {
    /** The commit whose chart and CRDs are installed first (main before the operator made its own certificate). */
    static final String PINNED = "7e1683a58543f0de37558c8834200c304c9aaff8";

    private static final String REDIS = "redis://127.0.0.1:6379";

    @Test
    void givenLivePoolsOnTheEarlierChart_whenUpgradedAndUninstalled_thenNothingIsLostAndNothingHangs(@TempDir Path old)
            throws Exception {
        LocalCluster cluster = LocalCluster.shared();
        KubernetesClient client = cluster.client();
        ControlPlane cp = cluster.controlPlane();
        Path oldChart = checkout(cp, old);
        cluster.kubectl(
                        "apply",
                        "--server-side",
                        "--force-conflicts",
                        "-f",
                        oldChart.resolve("crds").toString())
                .orThrow();
        // A cluster that never ran this tree's chart: no certificate of the operator's own yet.
        cluster.kubectl(
                        "delete",
                        "secret",
                        RealSandbox.RELEASE + "-webhook-operator-tls",
                        "-n",
                        RealSandbox.OPERATOR_NAMESPACE,
                        "--ignore-not-found")
                .orThrow();
        cp.helm(
                        "upgrade",
                        "--install",
                        RealSandbox.RELEASE,
                        oldChart.toString(),
                        "-n",
                        RealSandbox.OPERATOR_NAMESPACE,
                        "--create-namespace",
                        "--wait",
                        "--timeout",
                        "5m",
                        "--set",
                        "watchAllNamespaces=true")
                .orThrow();
        String ns = UniqueNames.prefix("e2e-upgrade");
        cluster.kubectl("create", "namespace", ns).orThrow();
        try {
            cluster.kubectl(
                            "apply",
                            "-n",
                            ns,
                            "-f",
                            cp.root()
                                    .resolve("examples/manifests/local/redis.yaml")
                                    .toString())
                    .orThrow();
            cluster.kubectl(
                            "patch",
                            "bwp",
                            "shop-workers",
                            "-n",
                            ns,
                            "--type",
                            "merge",
                            "-p",
                            "{\"spec\": {\"autoscaling\": {\"minReplicas\": 1, \"maxReplicas\": 1}}}")
                    .orThrow();
            await("pool Ready with one worker").atMost(Duration.ofMinutes(3)).until(() -> ready(client, ns));
            String run = UUID.randomUUID().toString().substring(0, 8);
            enqueue(run + "-before", 200);
            await("the jobs enqueued on the earlier chart done")
                    .atMost(Duration.ofMinutes(2))
                    .until(() -> receipts(run + "-before") == 200);
            Pod worker = workerPod(client, ns);

            cluster.kubectl(
                            "apply",
                            "--server-side",
                            "--force-conflicts",
                            "-f",
                            cp.root().resolve("crds").toString())
                    .orThrow();
            RealSandbox.installChart(cluster);
            enqueue(run + "-after", 200);
            await("the jobs enqueued after the upgrade done")
                    .atMost(Duration.ofMinutes(2))
                    .until(() -> receipts(run + "-after") == 200);
            // The new operator's first status write can come after the jobs are done: wait for it.
            await("topology and pool Ready after the upgrade")
                    .atMost(Duration.ofMinutes(2))
                    .until(() -> ready(client, ns));
            Pod same = workerPod(client, ns);
            assertEquals(worker.getMetadata().getUid(), same.getMetadata().getUid(), "the worker pod was not replaced");
            assertEquals(
                    worker.getStatus().getContainerStatuses().get(0).getRestartCount(),
                    same.getStatus().getContainerStatuses().get(0).getRestartCount(),
                    "nor restarted");
            ControlPlane.Result denied = cluster.kubectlWithInput("""
                    apiVersion: backstage.dev/v1alpha1
                    kind: BackstageWorkerPool
                    metadata: {name: bad}
                    spec: {image: backstage-sample-tasks:0.1.0, topologyRef: {name: missing}, queues: [default]}
                    """, "apply", "-n", ns, "-f", "-");
            assertNotEquals(0, denied.exit());
            assertTrue(
                    denied.err().contains("admission webhook") && denied.err().contains("not found"), denied.err());

            ControlPlane.Result uninstall = cp.helm(
                    "uninstall",
                    RealSandbox.RELEASE,
                    "-n",
                    RealSandbox.OPERATOR_NAMESPACE,
                    "--wait",
                    "--timeout",
                    "2m");
            assertEquals(0, uninstall.exit(), "helm uninstall returns within its timeout: " + uninstall.err());
            assertEquals(
                    0,
                    cluster.kubectl("delete", "btp", "shop-redis", "-n", ns, "--timeout=60s")
                            .exit(),
                    "a retained topology is deleted without an operator");
        } finally {
            cluster.kubectl("delete", "namespace", ns, "--wait=false");
            RealSandbox.installChart(cluster); // the other tests' operator, as they expect it
        }
    }

    /** The pinned commit's chart (with its crds/), from git. */
    private static Path checkout(ControlPlane cp, Path into) throws Exception {
        Process archive = new ProcessBuilder(
                        "sh",
                        "-c",
                        "git -C '" + cp.root() + "' archive " + PINNED + " helm/backstage-operator | tar -x -C '" + into
                                + "'")
                .inheritIO()
                .start();
        assertEquals(0, archive.waitFor(), "git archive " + PINNED);
        Path chart = into.resolve("helm/backstage-operator");
        assertTrue(Files.exists(chart.resolve("Chart.yaml")), "the pinned chart is there");
        return chart;
    }

    private static boolean ready(KubernetesClient client, String ns) {
        BackstageTopology topology = client.resources(BackstageTopology.class)
                .inNamespace(ns)
                .withName("shop-redis")
                .get();
        BackstageWorkerPool pool = client.resources(BackstageWorkerPool.class)
                .inNamespace(ns)
                .withName("shop-workers")
                .get();
        var deployment = client.apps()
                .deployments()
                .inNamespace(ns)
                .withName("shop-workers")
                .get();
        return topology != null
                && topology.getStatus() != null
                && Conditions.isTrue(topology.getStatus().getConditions(), Conditions.READY)
                && pool != null
                && pool.getStatus() != null
                && Conditions.isTrue(pool.getStatus().getConditions(), Conditions.READY)
                && deployment != null
                && deployment.getStatus() != null
                && Integer.valueOf(1).equals(deployment.getStatus().getReadyReplicas());
    }

    private static Pod workerPod(KubernetesClient client, String ns) {
        List<Pod> pods =
                client.pods().inNamespace(ns).withLabel("backstage.dev/pool", "shop-workers").list().getItems().stream()
                        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                        .toList();
        assertEquals(
                1,
                pods.size(),
                "one worker pod: "
                        + pods.stream().map(p -> p.getMetadata().getName()).toList());
        return pods.get(0);
    }

    private static void enqueue(String run, int orders) throws Exception {
        try (Provider p = Providers.create(new ProviderSettings("redis", REDIS, "shop-local", "shop-workers", null))) {
            JobProducer producer = new JobProducer(new CapabilitySet(p, null, null, null), PayloadCodec.defaults());
            IntStream.range(0, orders)
                    .forEach(i -> producer.enqueue(
                            "processOrder", new Order(run + "-" + i, i, "visa"), EnqueueOptions.defaults()));
        }
    }

    private static long receipts(String run) throws Exception {
        try (RedisStreams streams = new RedisStreams()) {
            Map<String, Integer> receipts = streams.receiptsPerOrder("shop-local:default");
            return receipts.keySet().stream()
                    .filter(id -> id.startsWith(run + "-"))
                    .count();
        }
    }
}
