package dev.backstage.operator.schedule;

import dev.backstage.operator.broker.ConnectionSecrets;
import dev.backstage.operator.events.EventRecorder;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.ScheduleSpec;
import dev.backstage.operator.polling.PerResourcePoller;
import dev.backstage.operator.status.StatusPatcher;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import dev.backstage.runtime.spi.schedule.CronTick;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fires the cron schedules of every topology ({@code spec.schedules}) on the topology's own broker, and is the one
 * writer of {@code status.schedules}, {@code status.scheduleSummary} and {@code status.lastFiredTick}.
 *
 * <p>It runs on the operator's one per-resource polling mechanism ({@link PerResourcePoller}, one
 * {@code schedule-firing} thread), like the backlog monitors: the topology reconciler calls {@link #track} on every
 * reconcile, which starts (or refreshes) a once-a-{@code period} turn for that topology ({@link TopologySchedules});
 * reconciles run only on the leader, so only the leader fires. As the topology controller's event source it hears
 * of updates (a fresher copy) and deletions (the turn stops), and it stops with the operator.
 *
 * <p>Exactly once across operators: every tick is claimed with its dedupe key before its job is published
 * ({@link CronTick}, through {@link TickPublisher}), so an old leader that has not noticed its deposition yet and the
 * new one cannot both enqueue a tick, and a tick fired but not recorded before a crash is found claimed and only
 * recorded.
 */
public final class ScheduleFiring extends PerResourcePoller<BackstageTopology, TopologySchedules> {
    public static final String NAME = "schedule-firing";
    public static final Duration PERIOD = Duration.ofSeconds(1);
    private static final Logger LOG = LoggerFactory.getLogger(ScheduleFiring.class);

    private final TickPublisher publisher;
    private final StatusPatcher<BackstageTopology> patcher;
    private final EventRecorder events;
    private final Clock clock;
    private final Duration period;

    public ScheduleFiring(
            KubernetesClient client,
            EventRecorder events,
            Clock clock,
            Duration period,
            Function<ProviderSettings, Provider> opener) {
        this(client, new ConnectionSecrets(client), events, clock, period, opener);
    }

    /** @param secrets the operator's one Secret read path (shared with the topology reconciler) */
    public ScheduleFiring(
            KubernetesClient client,
            ConnectionSecrets secrets,
            EventRecorder events,
            Clock clock,
            Duration period,
            Function<ProviderSettings, Provider> opener) {
        super(NAME, 1, "schedule-firing");
        this.events = Objects.requireNonNull(events, "events");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.period = Objects.requireNonNull(period, "period");
        this.publisher = new TickPublisher(secrets, opener, clock);
        this.patcher = new StatusPatcher<>(client, BackstageTopology.class, ScheduleStatuses.OWNED);
    }

    public static ScheduleFiring create(
            KubernetesClient client, ConnectionSecrets secrets, EventRecorder events, Clock clock) {
        return new ScheduleFiring(client, secrets, events, clock, PERIOD, Providers::create);
    }

    /** Starts firing {@code topology}'s schedules, or hands its turn the newest copy. Never blocks on a broker. */
    public void track(BackstageTopology reconciled) {
        BackstageTopology topology = Serialization.clone(reconciled);
        ResourceID id = ResourceID.fromResource(topology);
        boolean hasSchedules = !schedules(topology).isEmpty();
        Optional<TopologySchedules> current = polled(id);
        if (current.isPresent()) {
            current.get().refresh(reconciled);
            if (!hasSchedules) {
                stopFiring(id, "no schedules left");
                runOnce(() -> turnQuietly(topology)); // clears status.schedules
            }
            return;
        }
        if (!hasSchedules) {
            if (topology.getStatus() != null && topology.getStatus().getScheduleSummary() != null) {
                runOnce(() -> turnQuietly(topology));
            }
            return;
        }
        TopologySchedules fresh = new TopologySchedules(topology, this, patcher, period);
        if (startPolling(id, () -> fresh) == fresh) {
            LOG.info("firing {} schedule(s) of topology {}", schedules(topology).size(), id);
        }
    }

    private void turnQuietly(BackstageTopology topology) {
        try {
            turn(topology);
        } catch (RuntimeException e) {
            LOG.warn(
                    "clearing the schedule status of topology {}/{} failed: {}",
                    topology.getMetadata().getNamespace(),
                    topology.getMetadata().getName(),
                    e.toString());
        }
    }

    /**
     * One turn for {@code topology} at the clock's time: fires what is due and writes the schedule fields of status
     * when they changed ({@link ScheduleStatuses}). The loop calls it every period; a test on a simulated clock
     * calls it directly.
     *
     * @return the topology as written, when a status write happened
     */
    public Optional<BackstageTopology> turn(BackstageTopology topology) {
        List<ScheduleSpec> specs = schedules(topology);
        List<ScheduleTurn.Notice> notices = new ArrayList<>();
        var written = patcher.update(topology, copy -> {
            notices.clear(); // a conflict re-runs the change: only the last attempt's notices are told
            if (copy.getStatus() == null) {
                return null; // not reconciled yet: the reconciler writes the first status, firing starts after it
            }
            ScheduleStatuses.apply(
                    copy.getStatus(),
                    specs,
                    clock,
                    period,
                    notices,
                    (schedule, tick) -> publisher.fire(copy, schedule, tick));
            return null;
        });
        for (ScheduleTurn.Notice notice : notices) {
            LOG.warn(
                    "topology {}/{}: {}",
                    topology.getMetadata().getNamespace(),
                    topology.getMetadata().getName(),
                    notice.message());
            events.record(topology, notice.type(), notice.reason(), notice.message());
        }
        return written.map(StatusPatcher.Written::resource);
    }

    private static List<ScheduleSpec> schedules(BackstageTopology topology) {
        return topology.getSpec() == null || topology.getSpec().getSchedules() == null
                ? List.of()
                : topology.getSpec().getSchedules();
    }

    private void stopFiring(ResourceID id, String why) {
        if (stopPolling(id)) {
            LOG.info("stopped firing the schedules of topology {} ({})", id, why);
            publisher.retainOnly(polled().stream()
                    .map(t -> t.topology().getMetadata().getUid())
                    .collect(Collectors.toSet()));
        }
    }

    @Override
    protected void deleted(BackstageTopology topology, boolean wasPolled) {
        if (wasPolled) {
            LOG.info("stopped firing the schedules of topology {} (deleted)", ResourceID.fromResource(topology));
            publisher.retainOnly(polled().stream()
                    .map(t -> t.topology().getMetadata().getUid())
                    .collect(Collectors.toSet()));
        }
    }

    @Override
    protected void closing() {
        publisher.close();
    }
}
