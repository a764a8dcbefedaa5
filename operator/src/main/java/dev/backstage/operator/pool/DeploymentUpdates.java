package dev.backstage.operator.pool;

import dev.backstage.operator.workload.PoolResources;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.Objects;

/** What an update of a pool's Deployment changed, as the Event that tells the user ({@code Scaled} or {@code DeploymentUpdated}). */
final class DeploymentUpdates {
    private DeploymentUpdates() {}

    /** {@code Scaled} when replicas is all that moved, else {@code DeploymentUpdated} (spec change or drift). */
    static String reason(Deployment actual, Deployment desired) {
        boolean scaled = !Objects.equals(
                actual.getSpec().getReplicas(), desired.getSpec().getReplicas());
        boolean templateSame = Objects.equals(image(actual), image(desired))
                && Objects.equals(configHash(actual), configHash(desired));
        return scaled && templateSame ? "Scaled" : "DeploymentUpdated";
    }

    static String message(Deployment actual, Deployment desired) {
        StringBuilder message = new StringBuilder("Updated Deployment ")
                .append(desired.getMetadata().getName())
                .append(" to the pool's spec");
        if (!Objects.equals(actual.getSpec().getReplicas(), desired.getSpec().getReplicas())) {
            message.append("; replicas ")
                    .append(actual.getSpec().getReplicas())
                    .append(" -> ")
                    .append(desired.getSpec().getReplicas());
        }
        if (!Objects.equals(configHash(actual), configHash(desired))) {
            message.append("; config ")
                    .append(configHash(actual))
                    .append(" -> ")
                    .append(configHash(desired));
        }
        return message.toString();
    }

    private static String image(Deployment deployment) {
        var containers = deployment.getSpec().getTemplate().getSpec() == null
                ? null
                : deployment.getSpec().getTemplate().getSpec().getContainers();
        return containers == null || containers.isEmpty()
                ? null
                : containers.get(0).getImage();
    }

    private static String configHash(Deployment deployment) {
        var annotations = deployment.getSpec().getTemplate().getMetadata() == null
                ? null
                : deployment.getSpec().getTemplate().getMetadata().getAnnotations();
        return annotations == null ? null : annotations.get(PoolResources.CONFIG_HASH_ANNOTATION);
    }
}
