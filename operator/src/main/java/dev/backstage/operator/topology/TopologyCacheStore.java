package dev.backstage.operator.topology;

import dev.backstage.operator.model.BackstageTopology;
import io.javaoperatorsdk.operator.processing.event.source.informer.TransformingItemStore;

/**
 * The topology informer's cache without {@code metadata.managedFields}: server-side apply's bookkeeping (one entry per
 * field manager, each a tree of maps) is most of a cached topology's memory, and nothing here reads it (status and
 * broker objects are made from objects built afresh; the API server resolves field ownership). At 1,000 pools, dropping them from the
 * pool and topology caches took the heap after a full GC from 204 to 178 MiB (of 248 MiB; one round each). The Deployment and ConfigMap caches keep theirs: JOSDK's
 * server-side-apply matcher compares the desired object with the managed fields of the cached one.
 */
public final class TopologyCacheStore extends TransformingItemStore<BackstageTopology> {
    public TopologyCacheStore() {
        super(topology -> {
            topology.getMetadata().setManagedFields(null);
            return topology;
        });
    }
}
