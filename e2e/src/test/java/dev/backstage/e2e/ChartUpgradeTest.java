package dev.backstage.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.e2e.RedisStreams.StreamCounters;
import dev.backstage.e2e.cluster.LocalCluster;
import dev.backstage.e2e.cluster.PinnedOperator;
import dev.backstage.e2e.sandbox.RealSandbox;
import dev.backstage.examples.orders.Order;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
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
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code helm upgrade} from the chart, CRDs and operator image of a pinned earlier commit ({@link #PINNED}) to this
 * tree's, with a live topology and pool, jobs flowing and dead letters. The earlier operator runs from that
 * commit's own build ({@code bin/pinned-operator}, cached per machine) as {@code backstage-operator:pinned-<commit>};
 * after the upgrade this build's operator takes over the pool the earlier one made. It asserts: the operator pods
 * were replaced by the new image; the worker pod kept its uid and restart count when the Deployment's pod template
 * renders the same (when it does not, the test prints the difference and asserts exactly one rolling replacement);
 * no broker object was made again (the stream's and the dead-letter stream's counters continue, no job of the first
 * batch ran again, so the consumer group kept its place); the pool's dead-letter count and Ready condition continue;
 * every job is done or dead-lettered; the webhook still denies a bad pool. Then {@code helm uninstall} returns within
 * its timeout, and a retained topology is deleted at once afterwards (it carries no finalizer).
 */
@Tag("cluster")
@Tag("broker")
@Tag("slow")
class ChartUpgradeTest {
    /** The commit whose chart, CRDs and operator are installed first (its chart made the webhook certificate). */
    static final String PINNED = "7e1683a58543f0de37558c8834200c304c9aaff8";

    private static final String REDIS = "redis://127.0.0.1:6379";
    private static final String GROUP = "shop-workers";
    private static final int ORDERS = 200;
    /** Both operators write the pool's status heartbeat this often: the sign that the new one reconciled the pool. */
    private static final String[] SETTINGS = {
        "--set", "extraEnv[1].name=BACKSTAGE_STATUS_HEARTBEAT", "--set-string", "extraEnv[1].value=5s"
    };

    @Test
    void givenLivePoolsOnTheEarlierChartAndOperator_whenUpgraded_thenNothingIsRecreatedLostOrReset(@TempDir Path old)
            throws Exception {
        LocalCluster cluster = LocalCluster.shared();
        KubernetesClient client = cluster.client();
        ControlPlane cp = cluster.controlPlane();
        UpgradeView view = new UpgradeView(client);
        Path oldChart = PinnedOperator.chart(cluster, PINNED, old);
        String pinnedImage = "backstage-operator:" + PinnedOperator.register(cluster, PINNED);
        String run = UUID.randomUUID().toString().substring(0, 8);
        String prefix = "upgrade-" + run;
        String stream = prefix + ":default";
        String deadLetters = stream + ":dead-letter";
        String ns = UniqueNames.prefix("e2e-upgrade");
        try (RedisStreams redis = new RedisStreams()) {
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
                            "watchAllNamespaces=true",
                            "--set",
                            "image.tag=" + pinnedImage.split(":")[1],
                            "--set",
                            "extraEnv[0].name=BACKSTAGE_TOPOLOGY_POLL_INTERVAL",
                            "--set-string",
                            "extraEnv[0].value=5s",
                            SETTINGS[0],
                            SETTINGS[1],
                            SETTINGS[2],
                            SETTINGS[3])
                    .orThrow();
            await("only the earlier commit's operator runs")
                    .atMost(Duration.ofMinutes(3))
                    .until(() -> view.operatorsRunOnly(pinnedImage, pinnedImage));
            var oldOperators = view.operatorUids();
            cluster.kubectl("create", "namespace", ns).orThrow();
            String manifest = Files.readString(cp.root().resolve("examples/manifests/local/redis.yaml"))
                    .replace("keyPrefix: shop-local", "keyPrefix: " + prefix);
            assertTrue(manifest.contains("keyPrefix: " + prefix), "the example sets keyPrefix: shop-local");
            cluster.kubectlWithInput(manifest, "apply", "-n", ns, "-f", "-").orThrow();
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
            await("pool Ready with one worker").atMost(Duration.ofMinutes(3)).until(() -> view.ready(ns));
            enqueue(prefix, run + "-before");
            await("the first batch done and its declined order dead-lettered, in the pool's status")
                    .atMost(Duration.ofMinutes(2))
                    .until(() -> receipts(redis, stream, run + "-before") == ORDERS
                            && redis.redis().xlen(deadLetters) == 1
                            && view.deadLetters(ns) == 1);
            Pod worker = view.workerPod(ns);
            Deployment deploymentBefore = view.deployment(ns);
            BackstageWorkerPoolStatus statusBefore = view.pool(ns).getStatus();
            StreamCounters streamBefore = redis.counters(stream);
            StreamCounters deadBefore = redis.counters(deadLetters);
            long readBefore = redis.entriesRead(stream, GROUP);

            cluster.kubectl(
                            "apply",
                            "--server-side",
                            "--force-conflicts",
                            "-f",
                            cp.root().resolve("crds").toString())
                    .orThrow();
            RealSandbox.installChart(cluster, SETTINGS);
            String newImage = view.operatorDeployment()
                    .getSpec()
                    .getTemplate()
                    .getSpec()
                    .getContainers()
                    .get(0)
                    .getImage();
            assertNotEquals(pinnedImage, newImage, "the upgrade changes the operator image");
            await("only this build's operator runs")
                    .atMost(Duration.ofMinutes(3))
                    .until(() -> view.operatorsRunOnly(newImage, "backstage-operator"));
            Instant newOnly = Instant.now();
            assertTrue(
                    view.operatorUids().stream().noneMatch(oldOperators::contains), "every operator pod was replaced");
            await("the new operator reconciled the pool (its status heartbeat)")
                    .atMost(Duration.ofMinutes(2))
                    .until(() -> view.heartbeatAfter(ns, newOnly));
            Deployment deploymentAfter = view.deployment(ns);
            String templateChange = UpgradeView.templateDiff(deploymentBefore, deploymentAfter);
            if (templateChange.isEmpty()) {
                Pod same = view.workerPod(ns);
                assertEquals(worker.getMetadata().getUid(), same.getMetadata().getUid(), "the worker pod was kept");
                assertEquals(UpgradeView.restarts(worker), UpgradeView.restarts(same), "and not restarted");
                assertEquals(UpgradeView.revision(deploymentBefore), UpgradeView.revision(deploymentAfter));
            } else {
                System.out.println("the worker pod template changed between " + PINNED.substring(0, 7)
                        + " and this tree; expecting one rolling replacement:\n" + templateChange);
                await("one rolling replacement of the worker")
                        .atMost(Duration.ofMinutes(3))
                        .until(() -> view.ready(ns)
                                && !view.workerPod(ns)
                                        .getMetadata()
                                        .getUid()
                                        .equals(worker.getMetadata().getUid()));
                assertEquals(UpgradeView.revision(deploymentBefore) + 1, UpgradeView.revision(view.deployment(ns)));
                assertEquals(0, UpgradeView.restarts(view.workerPod(ns)), "the new worker did not restart");
            }

            enqueue(prefix, run + "-after");
            await("the second batch done and its declined order dead-lettered, counted after the first")
                    .atMost(Duration.ofMinutes(2))
                    .until(() -> receipts(redis, stream, run + "-after") == ORDERS
                            && redis.redis().xlen(deadLetters) == 2
                            && view.deadLetters(ns) == 2);
            await("topology and pool Ready after the upgrade")
                    .atMost(Duration.ofMinutes(2))
                    .until(() -> view.ready(ns));
            assertTrue(
                    redis.receiptsPerOrder(stream).entrySet().stream()
                            .filter(e -> e.getKey().startsWith(run + "-before-"))
                            .allMatch(e -> e.getValue() == 1),
                    "no job of the first batch ran again: the consumer group was not made again");
            StreamCounters streamAfter = redis.counters(stream);
            long added = redis.countAfter(stream, streamBefore.lastId());
            assertEquals(streamBefore.firstId(), streamAfter.firstId(), "the stream keeps its first entry");
            assertEquals(streamBefore.entriesAdded() + added, streamAfter.entriesAdded(), "entries-added continues");
            assertEquals(streamBefore.length() + added, streamAfter.length(), "no entry lost");
            assertEquals(readBefore + added, redis.entriesRead(stream, GROUP), "the group's entries-read continues");
            assertEquals(0, redis.pending(stream, GROUP), "nothing left pending");
            StreamCounters deadAfter = redis.counters(deadLetters);
            assertEquals(deadBefore.firstId(), deadAfter.firstId(), "the dead-letter stream keeps its first entry");
            assertEquals(deadBefore.entriesAdded() + 1, deadAfter.entriesAdded(), "and its entries-added continues");
            BackstageWorkerPoolStatus statusAfter = view.pool(ns).getStatus();
            assertEquals(statusBefore.getObservedGeneration(), statusAfter.getObservedGeneration());
            // Not asserted: that the topology's and the pool's Ready stayed True throughout. The pinned operator, while
            // it stops, can reconcile the topology after closing its broker connections and write Ready=False
            // (DeclarationFailed, a wrapped BrokerConnections.ClosedException) until the new leader's first poll.
            System.out.printf(
                    "upgraded from %s (%s) to this tree (%s): worker pod template %s; stream entries-added %d -> %d,"
                            + " group entries-read %d -> %d; pool dead letters 1 -> 2%n",
                    PINNED.substring(0, 7),
                    pinnedImage,
                    newImage,
                    templateChange.isEmpty() ? "unchanged, pod kept" : "changed, rolled once",
                    streamBefore.entriesAdded(),
                    streamAfter.entriesAdded(),
                    readBefore,
                    redis.entriesRead(stream, GROUP));
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
            // The other tests' CRDs and operator, as they expect them, also after a failure before the upgrade.
            cluster.kubectl(
                    "apply",
                    "--server-side",
                    "--force-conflicts",
                    "-f",
                    cp.root().resolve("crds").toString());
            RealSandbox.installChart(cluster);
            try (RedisStreams redis = new RedisStreams()) {
                redis.deleteKeys(prefix + ":"); // the topology retains its keys
            }
        }
    }

    /** 200 orders and one with a declined card (dead-lettered after its retries), ids {@code <run>-<i>}. */
    private static void enqueue(String prefix, String run) throws Exception {
        try (Provider p = Providers.create(new ProviderSettings("redis", REDIS, prefix, GROUP, null))) {
            JobProducer producer = new JobProducer(new CapabilitySet(p, null, null, null), PayloadCodec.defaults());
            IntStream.range(0, ORDERS)
                    .forEach(i -> producer.enqueue(
                            "processOrder", new Order(run + "-" + i, i, "visa"), EnqueueOptions.defaults()));
            producer.enqueue("processOrder", new Order(run + "-declined", 1, "declined"), EnqueueOptions.defaults());
        }
    }

    private static long receipts(RedisStreams redis, String stream, String run) throws Exception {
        Map<String, Integer> receipts = redis.receiptsPerOrder(stream);
        return receipts.keySet().stream().filter(id -> id.startsWith(run + "-")).count();
    }
}
