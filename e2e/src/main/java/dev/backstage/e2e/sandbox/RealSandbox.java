package dev.backstage.e2e.sandbox;

import dev.backstage.e2e.cluster.LocalCluster;
import dev.backstage.operator.model.BackstageWorkerPool;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.util.List;

/**
 * The sandbox on the real local cluster ({@code bin/control-plane}): the Helm chart installed with the real
 * {@code helm} (the operator runs as a Pod under the chart's ServiceAccount, through the node agent), manifests
 * applied with the real {@code kubectl}, worker pods run by the node agent.
 */
public final class RealSandbox implements DemoCluster {
    public static final String OPERATOR_NAMESPACE = "backstage-system";
    public static final String RELEASE = "backstage-operator";

    private final LocalCluster cluster;
    private final String namespace;

    private RealSandbox(LocalCluster cluster, String namespace) {
        this.cluster = cluster;
        this.namespace = namespace;
    }

    /**
     * Starts the control plane and the node agent, installs (or upgrades) the chart and waits for the operator
     * to be ready, and creates {@code namespace} (deleting what a previous run left in it).
     */
    public static RealSandbox start(String namespace, Path nodeDir) {
        LocalCluster cluster = LocalCluster.start(nodeDir);
        try {
            installChart(cluster);
            cluster.kubectl("delete", "namespace", namespace, "--ignore-not-found", "--wait=true", "--timeout=120s")
                    .orThrow();
            cluster.kubectl("create", "namespace", namespace).orThrow();
            return new RealSandbox(cluster, namespace);
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /**
     * {@code helm upgrade --install} of the chart with its default values but cluster-wide (the sandbox and the e2e
     * tests make namespaces as they go), waiting for the operator to be ready.
     */
    public static void installChart(LocalCluster cluster, String... extraArgs) {
        List<String> args = new java.util.ArrayList<>(List.of(
                "upgrade",
                "--install",
                RELEASE,
                cluster.root().resolve("helm/backstage-operator").toString(),
                "--namespace",
                OPERATOR_NAMESPACE,
                "--create-namespace",
                "--wait",
                "--timeout",
                "5m",
                "--set",
                "watchAllNamespaces=true",
                // A short broker re-check keeps the sandbox lively; the default is 30 s.
                "--set",
                "extraEnv[0].name=BACKSTAGE_TOPOLOGY_POLL_INTERVAL",
                "--set-string",
                "extraEnv[0].value=5s"));
        args.addAll(List.of(extraArgs));
        cluster.helm(args.toArray(String[]::new)).orThrow();
    }

    public LocalCluster cluster() {
        return cluster;
    }

    /**
     * The console for the demo: a ServiceAccount {@code <namespace>-console} that may read and act on the namespace's
     * pools and topologies, and the two lines that open the console (its Service's loopback ClusterIP, which the
     * node agent forwards to the operator pod, and the command that makes a token; the token itself is never
     * printed). Empty when the chart runs without the console.
     */
    public List<String> consoleInstructions() {
        var service = client().services()
                .inNamespace(OPERATOR_NAMESPACE)
                .withName(RELEASE + "-console")
                .get();
        if (service == null || service.getSpec() == null || service.getSpec().getClusterIP() == null) {
            return List.of();
        }
        String account = namespace + "-console";
        client().resource(new io.fabric8.kubernetes.api.model.ServiceAccountBuilder()
                        .withNewMetadata()
                        .withNamespace(namespace)
                        .withName(account)
                        .endMetadata()
                        .build())
                .serverSideApply();
        client().resource(new io.fabric8.kubernetes.api.model.rbac.RoleBuilder()
                        .withNewMetadata()
                        .withNamespace(namespace)
                        .withName(account)
                        .endMetadata()
                        .addNewRule()
                        .withApiGroups("backstage.dev")
                        .withResources("backstageworkerpools", "backstagetopologies")
                        .withVerbs("get", "list", "watch", "update")
                        .endRule()
                        .build())
                .serverSideApply();
        client().resource(new io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder()
                        .withNewMetadata()
                        .withNamespace(namespace)
                        .withName(account)
                        .endMetadata()
                        .withNewRoleRef("rbac.authorization.k8s.io", "Role", account)
                        .addNewSubject()
                        .withKind("ServiceAccount")
                        .withName(account)
                        .withNamespace(namespace)
                        .endSubject()
                        .build())
                .serverSideApply();
        int port = service.getSpec().getPorts().get(0).getPort();
        return List.of(
                "console: http://" + service.getSpec().getClusterIP() + ":" + port + "/ (docs/operator/console.md)",
                "  sign in with the token of: " + cluster.root().resolve(".tools/bin/kubectl") + " --kubeconfig "
                        + cluster.kubeconfig() + " -n " + namespace + " create token " + account);
    }

    @Override
    public void apply(String yaml) {
        cluster.kubectlWithInput(yaml, "apply", "-n", namespace, "-f", "-").orThrow();
    }

    @Override
    public BackstageWorkerPool pool(String name) {
        return client().resources(BackstageWorkerPool.class)
                .inNamespace(namespace)
                .withName(name)
                .get();
    }

    @Override
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

    @Override
    public KubernetesClient client() {
        return cluster.client();
    }

    @Override
    public String namespace() {
        return namespace;
    }

    @Override
    public String podsSummary() {
        List<Pod> pods = client().pods().inNamespace(namespace).list().getItems();
        int restarts = pods.stream()
                .flatMap(p -> p.getStatus() == null || p.getStatus().getContainerStatuses() == null
                        ? java.util.stream.Stream.empty()
                        : p.getStatus().getContainerStatuses().stream())
                .mapToInt(c -> c.getRestartCount() == null ? 0 : c.getRestartCount())
                .sum();
        return pods.size() + " pods now, " + restarts + " container restarts";
    }

    @Override
    public String describe() {
        return "Kubernetes " + client().getKubernetesVersion().getGitVersion() + " on " + client().getMasterUrl()
                + "; operator installed with helm in " + OPERATOR_NAMESPACE;
    }

    @Override
    public void close() {
        cluster.close();
    }
}
