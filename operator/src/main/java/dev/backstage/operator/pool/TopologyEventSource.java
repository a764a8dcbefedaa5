package dev.backstage.operator.pool;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Watches BackstageTopologies for the pool reconciler: a pool's topology is its secondary resource (by
 * {@code spec.topologyRef.name} in the pool's namespace), and a change of a topology's spec or Ready condition
 * re-reconciles every pool that names it ({@link TopologyChangeFilter}). That is how a pool notices its topology
 * appear or become Ready.
 */
public final class TopologyEventSource {
    public static final String NAME = "topology";
    static final String POOLS_BY_TOPOLOGY = "pools-by-topology";

    private TopologyEventSource() {}

    public static InformerEventSource<BackstageTopology, BackstageWorkerPool> create(
            EventSourceContext<BackstageWorkerPool> context) {
        context.getPrimaryCache().addIndexer(POOLS_BY_TOPOLOGY, pool -> {
            String topology = topologyName(pool);
            return topology == null ? List.of() : List.of(key(pool.getMetadata().getNamespace(), topology));
        });
        var configuration = InformerEventSourceConfiguration.from(BackstageTopology.class, BackstageWorkerPool.class)
                .withName(NAME)
                .withNamespacesInheritedFromController()
                .withOnUpdateFilter(new TopologyChangeFilter())
                .withSecondaryToPrimaryMapper((BackstageTopology topology) -> context
                        .getPrimaryCache()
                        .byIndex(
                                POOLS_BY_TOPOLOGY,
                                key(
                                        topology.getMetadata().getNamespace(),
                                        topology.getMetadata().getName()))
                        .stream()
                        .map(ResourceID::fromResource)
                        .collect(Collectors.toSet()))
                .withPrimaryToSecondaryMapper((BackstageWorkerPool pool) -> {
                    String topology = topologyName(pool);
                    return topology == null
                            ? Set.of()
                            : Set.of(new ResourceID(topology, pool.getMetadata().getNamespace()));
                })
                .build();
        return new InformerEventSource<>(configuration, context);
    }

    static String topologyName(BackstageWorkerPool pool) {
        if (pool.getSpec() == null || pool.getSpec().getTopologyRef() == null) {
            return null;
        }
        return pool.getSpec().getTopologyRef().getName();
    }

    private static String key(String namespace, String name) {
        return namespace + "/" + name;
    }
}
