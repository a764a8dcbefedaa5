package dev.backstage.e2e.sandbox;

import dev.backstage.operator.model.BackstageWorkerPool;
import io.fabric8.kubernetes.client.KubernetesClient;

/** What the sandbox needs of a cluster: the real local one ({@link RealSandbox}) or the mock ({@link SandboxCluster}). */
public interface DemoCluster extends AutoCloseable {
    /** {@code kubectl apply -f} of a YAML stream into {@link #namespace()}. */
    void apply(String yaml);

    BackstageWorkerPool pool(String name);

    /** Ready replicas of a Deployment, as its status says (0 when it has none yet). */
    int readyReplicas(String deployment);

    KubernetesClient client();

    String namespace();

    /** Worker containers started, and those that died and were started again. */
    String podsSummary();

    /** What the user can do next with this cluster, printed at the end. */
    String describe();

    @Override
    void close();
}
