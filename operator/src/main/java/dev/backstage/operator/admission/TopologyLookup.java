package dev.backstage.operator.admission;

import dev.backstage.operator.model.BackstageTopology;
import java.util.Optional;

/**
 * Where admission finds the topology a pool names without asking the API server: the operator's informer cache of
 * BackstageTopologies (every replica runs its informers, leader or not). A cache can lag a write by the time its
 * watch event takes to arrive, so {@link WorkerPoolValidator} lets a pool through on the cached copy but confirms a
 * denial, or a miss, with a read from the API server.
 */
@FunctionalInterface
public interface TopologyLookup {
    /** No cache: every pool's topology is read from the API server. */
    TopologyLookup NONE = (namespace, name) -> Optional.empty();

    /** The cached topology; empty when the cache does not hold it (or is not running yet). */
    Optional<BackstageTopology> cached(String namespace, String name);
}
