package dev.backstage.e2e.sandbox;

import dev.backstage.e2e.kubelet.LocalKubelet;
import dev.backstage.operator.main.BackstageOperator;
import dev.backstage.operator.main.LeaseSettings;
import dev.backstage.operator.main.OperatorSettings;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Set;

/**
 * A cluster on this machine: the fabric8 mock API (CRUD mode, CRDs loaded), the operator assembled exactly
 * as {@code OperatorMain} does it, and a {@link LocalKubelet} that turns Deployment replicas into real worker
 * processes talking to the local brokers. The e2e suite and the sandbox both run on it.
 */
public final class SandboxCluster implements DemoCluster {
    private final SandboxApiServer mock;
    /**
     * The mock web server logs every request through java.util.logging at INFO (not slf4j: logback's levels do not
     * reach it). JUL holds loggers weakly, so the one whose level is set is kept here: a logger looked up, set and
     * dropped can be collected, and the next lookup makes a fresh one at INFO that floods the live view.
     */
    private static final java.util.logging.Logger MOCK_WEB_SERVER_LOG =
            java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

    private final BackstageOperator operator;
    private final LocalKubelet kubelet;
    private final String namespace;

    private SandboxCluster(SandboxApiServer mock, BackstageOperator operator, LocalKubelet kubelet, String namespace) {
        this.mock = mock;
        this.operator = operator;
        this.kubelet = kubelet;
        this.namespace = namespace;
    }

    public static SandboxCluster start(String namespace, Path workDir) {
        MOCK_WEB_SERVER_LOG.setLevel(java.util.logging.Level.WARNING);
        SandboxApiServer mock = SandboxApiServer.start();
        KubernetesClient client = mock.client();
        client.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(namespace)
                        .endMetadata()
                        .build())
                .create();
        OperatorSettings settings =
                new OperatorSettings(Set.of(), false, LeaseSettings.defaults(null), "sandbox-operator", 0, false);
        BackstageOperator operator = BackstageOperator.create(
                client,
                settings,
                MicrometerMetrics.newPerResourceCollectingMicrometerMetricsBuilder(new SimpleMeterRegistry())
                        .build(),
                Clock.systemUTC(),
                java.util.Optional.of(dev.backstage.operator.topology.TopologySettings.fromEnv(System.getenv())),
                // The mock has no server-side apply: JOSDK patches status and matches dependents without it.
                o -> o.withUseSSAToPatchPrimaryResource(false)
                        .withSSABasedCreateUpdateMatchForDependentResources(false));
        operator.start();
        LocalKubelet kubelet = new LocalKubelet(client, namespace, workDir).start();
        return new SandboxCluster(mock, operator, kubelet, namespace);
    }

    public KubernetesClient client() {
        return mock.client();
    }

    public String namespace() {
        return namespace;
    }

    public LocalKubelet kubelet() {
        return kubelet;
    }

    @Override
    public void apply(String yaml) {
        applyAll(yaml);
    }

    /** {@code kubectl apply -f} for a YAML stream of several documents, into the sandbox's namespace. */
    public List<HasMetadata> applyAll(String yaml) {
        List<HasMetadata> items = client().load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)))
                .items();
        for (HasMetadata item : items) {
            item.getMetadata().setNamespace(namespace);
            client().resource(item)
                    .inNamespace(namespace)
                    .createOr(existing -> existing.patch(
                            PatchContext.of(io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE), item));
        }
        return items;
    }

    public BackstageWorkerPool pool(String name) {
        return client().resources(BackstageWorkerPool.class)
                .inNamespace(namespace)
                .withName(name)
                .get();
    }

    public BackstageTopology topology(String name) {
        return client().resources(BackstageTopology.class)
                .inNamespace(namespace)
                .withName(name)
                .get();
    }

    /** Ready replicas of a Deployment, as its status says (0 when it has none yet). */
    public int readyReplicas(String deployment) {
        var d = client().apps()
                .deployments()
                .inNamespace(namespace)
                .withName(deployment)
                .get();
        return d == null || d.getStatus() == null || d.getStatus().getReadyReplicas() == null
                ? 0
                : d.getStatus().getReadyReplicas();
    }

    /** The replicas a Deployment asks for (0 when it does not exist). */
    public int specReplicas(String deployment) {
        var d = client().apps()
                .deployments()
                .inNamespace(namespace)
                .withName(deployment)
                .get();
        return d == null || d.getSpec().getReplicas() == null ? 0 : d.getSpec().getReplicas();
    }

    @Override
    public String podsSummary() {
        return "pods started " + kubelet.podsStarted() + ", replaced after a crash " + kubelet.podsReplaced();
    }

    @Override
    public String describe() {
        return "the fabric8 mock API (CRUD mode) with the operator in this JVM and a local kubelet";
    }

    @Override
    public void close() {
        kubelet.close();
        operator.stop();
        mock.close();
    }
}
