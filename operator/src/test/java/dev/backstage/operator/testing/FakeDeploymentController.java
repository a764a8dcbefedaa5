package dev.backstage.operator.testing;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stands in for kube-controller-manager's deployment controller, which the mock API server lacks: whenever a
 * Deployment's status does not reflect its spec, it writes a status where every desired replica is
 * updated, ready and available (as if pods started at once), with observedGeneration caught up.
 *
 * <p>It runs on a fabric8 informer (its own watch thread); {@link #close()} stops it.
 */
public final class FakeDeploymentController implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FakeDeploymentController.class);

    private final KubernetesClient client;
    private final SharedIndexInformer<Deployment> informer;

    public FakeDeploymentController(KubernetesClient client) {
        this.client = client;
        this.informer = client.apps().deployments().inAnyNamespace().inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Deployment deployment) {
                rollOut(deployment);
            }

            @Override
            public void onUpdate(Deployment previous, Deployment deployment) {
                rollOut(deployment);
            }

            @Override
            public void onDelete(Deployment deployment, boolean finalStateUnknown) {
                // nothing to do: the mock has no pods
            }
        });
    }

    private void rollOut(Deployment deployment) {
        int replicas = deployment.getSpec().getReplicas() == null
                ? 1
                : deployment.getSpec().getReplicas();
        Long generation = deployment.getMetadata().getGeneration();
        var status = deployment.getStatus();
        if (status != null
                && Objects.equals(status.getReadyReplicas(), replicas)
                && Objects.equals(status.getReplicas(), replicas)
                && Objects.equals(status.getObservedGeneration(), generation)) {
            return;
        }
        deployment.setStatus(new DeploymentStatusBuilder()
                .withReplicas(replicas)
                .withReadyReplicas(replicas)
                .withAvailableReplicas(replicas)
                .withUpdatedReplicas(replicas)
                .withObservedGeneration(generation)
                .build());
        try {
            client.apps()
                    .deployments()
                    .inNamespace(deployment.getMetadata().getNamespace())
                    .resource(deployment)
                    .updateStatus();
        } catch (KubernetesClientException e) {
            // A conflict means a newer version is on its way to this informer; that update will roll out.
            LOG.info(
                    "fake deployment controller: status of {}/{} not written ({}); waiting for the next event",
                    deployment.getMetadata().getNamespace(),
                    deployment.getMetadata().getName(),
                    e.getCode());
        }
    }

    @Override
    public void close() {
        informer.close();
    }
}
