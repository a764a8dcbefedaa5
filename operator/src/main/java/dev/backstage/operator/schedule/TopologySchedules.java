package dev.backstage.operator.schedule;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.polling.PolledResource;
import dev.backstage.operator.status.StatusPatcher;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The schedules of one topology as {@link ScheduleFiring} polls them: the newest copy of the topology and one turn
 * ({@link ScheduleFiring#turn}) every period.
 */
final class TopologySchedules implements PolledResource<BackstageTopology> {
    private static final Logger LOG = LoggerFactory.getLogger(TopologySchedules.class);

    private final ScheduleFiring firing;
    private final StatusPatcher<BackstageTopology> patcher;
    private final Duration period;
    private volatile BackstageTopology topology;
    private volatile boolean stopped;

    TopologySchedules(
            BackstageTopology topology,
            ScheduleFiring firing,
            StatusPatcher<BackstageTopology> patcher,
            Duration period) {
        this.topology = Objects.requireNonNull(topology, "topology");
        this.firing = firing;
        this.patcher = patcher;
        this.period = period;
    }

    BackstageTopology topology() {
        return topology;
    }

    /** A newer copy, from the reconcile or the informer: copied, as the turn reads it from its own thread. */
    @Override
    public void refresh(BackstageTopology newer) {
        topology = Serialization.clone(newer);
    }

    @Override
    public void stop() {
        stopped = true;
    }

    @Override
    public Duration poll() {
        try {
            if (stopped) {
                return period;
            }
            BackstageTopology seen = topology;
            if (seen.getStatus() == null) {
                // The reconcile hands its copy over before it writes the first status, and that write starts no
                // reconcile (the controller is generation-aware): read the topology instead of waiting for the next
                // poll to hand over a newer copy (30 s, during which no tick would fire).
                BackstageTopology read = patcher.read(seen);
                if (read == null) {
                    return period;
                }
                seen = read;
            }
            topology = firing.turn(seen).orElse(seen);
        } catch (RuntimeException e) {
            LOG.warn(
                    "schedule turn of topology {}/{} failed; next turn in {}: {}",
                    topology.getMetadata().getNamespace(),
                    topology.getMetadata().getName(),
                    period,
                    e.toString());
        }
        return period;
    }
}
