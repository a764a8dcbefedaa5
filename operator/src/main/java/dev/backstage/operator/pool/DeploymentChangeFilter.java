package dev.backstage.operator.pool;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.javaoperatorsdk.operator.processing.event.source.filter.OnUpdateFilter;
import java.util.Objects;

/**
 * Which updates of a pool's Deployment start a reconcile of the pool: a change of what the pool's readiness and
 * status read ({@code observedGeneration} and the replica counts), of its spec (a new generation: drift to
 * overwrite) or of the metadata the operator sets (labels, annotations, owners), and a deletion mark.
 *
 * <p>The deployment controller also rewrites a Deployment's status for condition-only changes (Available,
 * Progressing and their timestamps): three status writes for a new Deployment at zero replicas, of which only the
 * first says anything the pool reports. The informer's cache still gets every update; only the reconcile is saved.
 */
public class DeploymentChangeFilter implements OnUpdateFilter<Deployment> {
    @Override
    public boolean accept(Deployment updated, Deployment previous) {
        ObjectMeta now = updated.getMetadata();
        ObjectMeta before = previous.getMetadata();
        return !Objects.equals(now.getGeneration(), before.getGeneration())
                || !Objects.equals(now.getDeletionTimestamp(), before.getDeletionTimestamp())
                || !Objects.equals(now.getLabels(), before.getLabels())
                || !Objects.equals(now.getAnnotations(), before.getAnnotations())
                || !Objects.equals(now.getOwnerReferences(), before.getOwnerReferences())
                || !Objects.equals(counts(updated), counts(previous));
    }

    /** The status fields the pool's readiness and status read. */
    private record Counts(
            Long observedGeneration, Integer replicas, Integer updated, Integer ready, Integer available) {}

    private static Counts counts(Deployment deployment) {
        DeploymentStatus s = deployment.getStatus();
        return s == null
                ? new Counts(null, null, null, null, null)
                : new Counts(
                        s.getObservedGeneration(),
                        s.getReplicas(),
                        s.getUpdatedReplicas(),
                        s.getReadyReplicas(),
                        s.getAvailableReplicas());
    }
}
