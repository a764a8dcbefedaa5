package dev.backstage.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.backstage.e2e.cluster.LocalCluster;
import dev.backstage.e2e.sandbox.RealSandbox;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.Conditions;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every manifest in {@code examples/manifests/local/} runs as shipped on the cluster {@code bin/demo --keep} leaves
 * up (the real control plane, the chart installed as the demo installs it, the node agent, the local brokers):
 * {@code kubectl apply -n NS -f FILE} of the file itself, then every topology in it Ready, every pool Ready and its
 * Deployment at the replicas it asks for, all ready.
 */
@Tag("cluster")
@Tag("broker")
class LocalExamplesTest {
    private static LocalCluster cluster;
    private static KubernetesClient client;

    @BeforeAll
    static void installTheChart() {
        cluster = LocalCluster.shared();
        client = cluster.client();
        RealSandbox.installChart(cluster);
    }

    static Stream<String> localExamples() throws IOException {
        try (Stream<Path> files = Files.list(dev.backstage.testsupport.ControlPlane.repoRoot().resolve("examples/manifests/local"))) {
            List<String> names = files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".yaml")).sorted()
                    .toList();
            assertFalse(names.isEmpty(), "examples/manifests/local has manifests");
            return names.stream();
        }
    }

    @ParameterizedTest
    @MethodSource("localExamples")
    void givenALocalExample_whenAppliedAsShipped_thenItsTopologiesAndPoolsGetReady(String file) throws Exception {
        Path path = cluster.root().resolve("examples/manifests/local").resolve(file);
        String ns = UniqueNames.prefix("example-" + file.replace(".yaml", ""));
        cluster.kubectl("create", "namespace", ns).orThrow();
        try {
            cluster.kubectl("apply", "-n", ns, "-f", path.toString()).orThrow();
            List<HasMetadata> objects = client.load(Files.newInputStream(path)).items();
            for (HasMetadata object : objects) {
                String name = object.getMetadata().getName();
                if (object instanceof BackstageTopology) {
                    await(file + ": topology " + name + " Ready").atMost(Duration.ofMinutes(2)).until(() -> {
                        BackstageTopology t = client.resources(BackstageTopology.class).inNamespace(ns).withName(name)
                                .get();
                        return t.getStatus() != null && Conditions.isTrue(t.getStatus().getConditions(), Conditions.READY);
                    });
                } else if (object instanceof BackstageWorkerPool) {
                    await(file + ": pool " + name + " Ready with its replicas ready").atMost(Duration.ofMinutes(3))
                            .until(() -> poolReady(ns, name));
                }
            }
            assertEquals(objects.stream().filter(BackstageWorkerPool.class::isInstance).count(),
                    client.apps().deployments().inNamespace(ns).list().getItems().size(), "one Deployment per pool");
        } finally {
            cluster.kubectl("delete", "namespace", ns, "--wait=false");
        }
    }

    private static boolean poolReady(String ns, String name) {
        BackstageWorkerPool pool = client.resources(BackstageWorkerPool.class).inNamespace(ns).withName(name).get();
        Deployment deployment = client.apps().deployments().inNamespace(ns).withName(name).get();
        if (pool.getStatus() == null || !Conditions.isTrue(pool.getStatus().getConditions(), Conditions.READY)
                || deployment == null) {
            return false;
        }
        int wanted = deployment.getSpec().getReplicas() == null ? 1 : deployment.getSpec().getReplicas();
        Integer ready = deployment.getStatus() == null ? null : deployment.getStatus().getReadyReplicas();
        return (ready == null ? 0 : ready) == wanted;
    }
}
