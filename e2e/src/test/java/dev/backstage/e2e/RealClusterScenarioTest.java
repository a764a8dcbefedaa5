package dev.backstage.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.backstage.e2e.sandbox.SandboxManifests;
import dev.backstage.examples.orders.Order;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.redis.RedisProvider;
import dev.backstage.runtime.redis.RedisSettings;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The same loop on a real cluster (kind or k3d through {@code KUBECONFIG}): installs the Helm chart, applies
 * a Redis topology and an autoscaled pool, enqueues jobs and waits for the pool to drain them and report its
 * dead letters. Needs images the cluster can pull ({@code bin/build-images}, then e.g. {@code kind load
 * docker-image}) and a Redis both the cluster and this machine reach ({@code BACKSTAGE_E2E_REDIS_URL} from
 * here, {@code BACKSTAGE_E2E_CLUSTER_REDIS_URL} from pods). Skips, saying why, when any of that is missing.
 */
class RealClusterScenarioTest {
    private static final Path HELM = Path.of("..", ".tools", "bin", "helm");

    @Test
    void givenARealClusterWhenTheChartIsInstalledThenAPoolDrainsJobsAndReportsDeadLetters() throws Exception {
        assumeTrue("1".equals(System.getenv("BACKSTAGE_E2E_CLUSTER")),
                "real-cluster profile off: set BACKSTAGE_E2E_CLUSTER=1 with KUBECONFIG pointing at kind/k3d");
        String redisHere = System.getenv("BACKSTAGE_E2E_REDIS_URL");
        String redisInCluster = System.getenv().getOrDefault("BACKSTAGE_E2E_CLUSTER_REDIS_URL", redisHere);
        assumeTrue(redisHere != null, "set BACKSTAGE_E2E_REDIS_URL to a Redis reachable from here and from the pods");
        try (KubernetesClient client = new KubernetesClientBuilder().build()) {
            String version;
            try {
                version = client.getKubernetesVersion().getGitVersion();
            } catch (RuntimeException e) {
                assumeTrue(false, "no cluster reachable through KUBECONFIG (" + e.getMessage() + ")");
                return;
            }
            assumeTrue(Files.isExecutable(HELM), "helm missing: run bin/helm-check once to fetch it into .tools/bin");
            System.out.println("[cluster] Kubernetes " + version + ": installing the chart");
            run(HELM.toString(), "upgrade", "--install", "backstage-operator", "../helm/backstage-operator",
                    "-n", "backstage-system", "--create-namespace", "--wait", "--timeout", "5m",
                    "--set", "image.repository=" + System.getenv().getOrDefault("BACKSTAGE_E2E_OPERATOR_IMAGE", "backstage-operator"),
                    "--set", "image.tag=0.1.0", "--set", "image.pullPolicy=IfNotPresent");

            String ns = UniqueNames.prefix("e2e");
            String prefix = ns;
            client.namespaces().resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder().withNewMetadata()
                    .withName(ns).endMetadata().build()).create();
            String manifests = SandboxManifests.redis(redisInCluster, prefix,
                    System.getenv().getOrDefault("BACKSTAGE_E2E_WORKER_IMAGE", "backstage-sample-tasks:0.1.0"));
            client.load(new ByteArrayInputStream(manifests.getBytes(StandardCharsets.UTF_8))).inNamespace(ns).create();

            int orders = 5000;
            try (Worker producer = Worker.builder().provider(RedisProvider.connect(
                    RedisSettings.of(redisHere).withPrefix(prefix))).build()) {
                for (int i = 0; i < orders; i++) {
                    producer.enqueue("processOrder", new Order("o-" + i, i, i % 100 == 0 ? "declined" : "visa"),
                            EnqueueOptions.defaults());
                }
            }
            System.out.println("[cluster] enqueued " + orders + "; waiting for the pool to drain");
            await().atMost(Duration.ofMinutes(10)).pollInterval(Duration.ofSeconds(2)).until(() -> {
                BackstageWorkerPool pool = client.resources(BackstageWorkerPool.class).inNamespace(ns)
                        .withName("shop-workers").get();
                var s = pool.getStatus();
                return s != null && s.getBacklog() != null && s.getBacklog().getOutstanding() != null
                        && s.getBacklog().getOutstanding() == 0 && s.getDeadLetters() != null
                        && s.getDeadLetters().getTotal() != null && s.getDeadLetters().getTotal() == orders / 100;
            });
            BackstageWorkerPool pool = client.resources(BackstageWorkerPool.class).inNamespace(ns).withName("shop-workers").get();
            assertEquals(orders / 100, pool.getStatus().getDeadLetters().getTotal());
            client.namespaces().withName(ns).delete();
        }
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(List.of(command)).inheritIO().start();
        if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed");
        }
    }
}
