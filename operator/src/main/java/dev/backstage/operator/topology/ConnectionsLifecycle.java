package dev.backstage.operator.topology;

import dev.backstage.operator.model.BackstageTopology;
import io.javaoperatorsdk.operator.OperatorException;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import java.util.Set;

/**
 * Ties the broker connections to the controller's lifecycle: JOSDK stops every event source when the operator
 * stops, and reconcilers have no stop hook of their own. It emits no events and holds no resources.
 */
final class ConnectionsLifecycle extends AbstractEventSource<Void, BackstageTopology> {
    static final String NAME = "broker-connections";

    private final BrokerConnections connections;

    ConnectionsLifecycle(BrokerConnections connections) {
        super(Void.class, NAME);
        this.connections = connections;
    }

    @Override
    public Set<Void> getSecondaryResources(BackstageTopology primary) {
        return Set.of();
    }

    @Override
    public void stop() throws OperatorException {
        connections.close();
        super.stop();
    }
}
