package dev.backstage.operator.pool;

import dev.backstage.operator.model.BackstageWorkerPool;
import io.javaoperatorsdk.operator.processing.event.source.filter.OnUpdateFilter;
import java.util.Objects;

/**
 * Which pool updates start a reconcile: a spec change (new generation), a deletion mark, or a new
 * {@code status.desiredReplicas} (the autoscaler's decision, which the reconciler applies to the Deployment).
 * Other status writes, including our own, do not.
 */
public class PoolChangeFilter implements OnUpdateFilter<BackstageWorkerPool> {
    @Override
    public boolean accept(BackstageWorkerPool updated, BackstageWorkerPool previous) {
        if (!Objects.equals(
                updated.getMetadata().getGeneration(), previous.getMetadata().getGeneration())) {
            return true;
        }
        if (updated.isMarkedForDeletion() != previous.isMarkedForDeletion()) {
            return true;
        }
        return !Objects.equals(desiredReplicas(updated), desiredReplicas(previous));
    }

    private static Integer desiredReplicas(BackstageWorkerPool pool) {
        return pool.getStatus() == null ? null : pool.getStatus().getDesiredReplicas();
    }
}
