package dev.backstage.operator.pool;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.Condition;
import dev.backstage.operator.model.Conditions;
import io.javaoperatorsdk.operator.processing.event.source.filter.OnUpdateFilter;
import java.util.Objects;
import java.util.Optional;

/**
 * Which updates of a topology re-reconcile the pools that name it: a spec change (a new generation: the pools'
 * runtime config and Deployments follow it), a deletion mark, or a change of its Ready condition (the pools' Ready
 * and their backlog monitors read it). Its other writes (the operator's finalizer, broker-object and schedule
 * status, a label) change nothing a pool reads; a schedule firing every minute would otherwise reconcile every pool of
 * the topology every minute.
 */
public class TopologyChangeFilter implements OnUpdateFilter<BackstageTopology> {
    @Override
    public boolean accept(BackstageTopology updated, BackstageTopology previous) {
        return !Objects.equals(
                        updated.getMetadata().getGeneration(),
                        previous.getMetadata().getGeneration())
                || updated.isMarkedForDeletion() != previous.isMarkedForDeletion()
                || !Objects.equals(ready(updated), ready(previous));
    }

    /** The Ready condition as the pools read it (its time left out: a new time with the same verdict is no news). */
    private static Optional<String> ready(BackstageTopology topology) {
        if (topology.getStatus() == null) {
            return Optional.empty();
        }
        return Conditions.find(topology.getStatus().getConditions(), Conditions.READY)
                .map(TopologyChangeFilter::verdict);
    }

    private static String verdict(Condition c) {
        return c.getStatus() + "\n" + c.getReason() + "\n" + c.getMessage() + "\n" + c.getObservedGeneration();
    }
}
