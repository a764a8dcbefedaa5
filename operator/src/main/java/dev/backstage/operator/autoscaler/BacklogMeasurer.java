package dev.backstage.operator.autoscaler;

import dev.backstage.operator.broker.BrokerConnectionException;
import dev.backstage.operator.broker.ProbeProviders;
import dev.backstage.operator.broker.SecretScrubber;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.Condition;
import dev.backstage.operator.model.Conditions;
import dev.backstage.runtime.spi.BacklogReport;
import dev.backstage.runtime.spi.BacklogUnavailableException;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.util.List;
import java.util.Objects;

/**
 * Measures one pool's backlog through its topology's provider probe, and turns every way that can fail into an
 * unavailable measurement with a reason (never an exception, never a 0). Blocks on the broker: call it from a
 * monitor thread, never a reconciler thread.
 */
final class BacklogMeasurer {
    static final String TOPOLOGY_NOT_FOUND = "TopologyNotFound";
    static final String TOPOLOGY_NOT_READY = "TopologyNotReady";
    static final String NO_QUEUES = "NoQueues";
    static final String SECRET_UNREADABLE = "SecretUnreadable";
    static final String PROBE_FAILED = "ProbeFailed";

    private final ProbeProviders providers;
    private final Clock clock;

    BacklogMeasurer(ProbeProviders providers, Clock clock) {
        this.providers = Objects.requireNonNull(providers, "providers");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * @param topology the pool's topology as last seen, {@code null} when it does not exist
     */
    BacklogMeasurement measure(BackstageWorkerPool pool, BackstageTopology topology) {
        if (topology == null) {
            return BacklogMeasurement.unavailable(
                    clock.instant(),
                    TOPOLOGY_NOT_FOUND,
                    "BackstageTopology '" + pool.getSpec().getTopologyRef().getName() + "' not found");
        }
        List<Condition> conditions =
                topology.getStatus() == null ? null : topology.getStatus().getConditions();
        if (!Conditions.isTrue(conditions, Conditions.READY)) {
            // Its broker objects may not exist or its Secret may be wrong: the topology's own status says which.
            return BacklogMeasurement.unavailable(
                    clock.instant(),
                    TOPOLOGY_NOT_READY,
                    "BackstageTopology '" + topology.getMetadata().getName() + "' is not Ready");
        }
        List<String> queues = pool.getSpec().getQueues();
        if (queues == null || queues.isEmpty()) {
            return BacklogMeasurement.unavailable(
                    clock.instant(),
                    NO_QUEUES,
                    "the pool consumes no queues (topics only): there is no job backlog to measure");
        }
        String group = topology.getSpec().getConsumerGroup();
        try (ProbeProviders.Lease lease = providers.lease(topology)) {
            try {
                BacklogReport report = lease.provider().backlogProbe().measure(queues, group);
                return BacklogMeasurement.measured(report, lease.provider().name());
            } catch (BacklogUnavailableException e) {
                lease.invalidate(); // do not reuse a connection that just failed
                return BacklogMeasurement.unavailable(
                        clock.instant(), e.reason(), SecretScrubber.none().scrub(e.getMessage()));
            } catch (RuntimeException e) {
                // A probe must throw BacklogUnavailableException; anything else is a bug in it, still not a 0.
                lease.invalidate();
                return BacklogMeasurement.unavailable(
                        clock.instant(),
                        PROBE_FAILED,
                        "the "
                                + lease.provider().name() + " backlog probe failed: "
                                + SecretScrubber.none().scrub(String.valueOf(e)));
            }
        } catch (BrokerConnectionException e) {
            return BacklogMeasurement.unavailable(clock.instant(), e.reason(), e.getMessage());
        } catch (KubernetesClientException e) {
            return BacklogMeasurement.unavailable(
                    clock.instant(),
                    SECRET_UNREADABLE,
                    "cannot read the topology's connection Secret: " + e.getMessage());
        }
    }
}
