package dev.backstage.operator.schedule;

import dev.backstage.operator.broker.BrokerConnectionException;
import dev.backstage.operator.broker.ProbeProviders;
import dev.backstage.operator.events.EventRecorder;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageTopologySpec;
import dev.backstage.operator.model.ProviderType;
import dev.backstage.operator.model.ScheduleSpec;
import dev.backstage.operator.model.ScheduleStatus;
import dev.backstage.operator.status.StatusPatcher;
import dev.backstage.operator.broker.ConnectionSecrets;
import dev.backstage.runtime.spi.DedupeCapability;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import dev.backstage.runtime.spi.schedule.CronTick;
import dev.backstage.runtime.spi.schedule.InvalidScheduleException;
import dev.backstage.runtime.spi.schedule.Schedule;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.OperatorException;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import io.javaoperatorsdk.operator.processing.event.source.ResourceEventAware;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fires the cron schedules of every topology ({@code spec.schedules}) on the topology's own broker, and is the one
 * writer of {@code status.schedules}.
 *
 * <p>Lifecycle, like the backlog monitors': the topology reconciler calls {@link #track} on every reconcile, which
 * starts (or refreshes) a once-a-{@code period} turn for that topology on this component's own thread; reconciles
 * run only on the leader, so only the leader fires. Registered with the topology controller as an event source, it
 * hears of updates (a fresher copy) and deletions (the turn stops), and stops with the operator.
 *
 * <p>Exactly once across operators: every tick is claimed with its dedupe key before its job is published
 * ({@link CronTick}), so an old leader that has not noticed its deposition yet and the new one cannot both enqueue
 * a tick, and a tick fired but not recorded before a crash is found claimed and only recorded. The dedupe comes from
 * the provider (Redis) or from {@code spec.capabilities.dedupe} (a Redis beside RabbitMQ or Kafka).
 */
public final class ScheduleFiring extends AbstractEventSource<Void, BackstageTopology>
        implements ResourceEventAware<BackstageTopology> {
    public static final String NAME = "schedule-firing";
    public static final Duration PERIOD = Duration.ofSeconds(1);
    private static final Logger LOG = LoggerFactory.getLogger(ScheduleFiring.class);

    private final ConcurrentMap<ResourceID, Tracked> tracked = new ConcurrentHashMap<>();
    private final ProbeProviders providers;
    private final ProbeProviders dedupeProviders;
    private final StatusPatcher<BackstageTopology> patcher;
    private final EventRecorder events;
    private final Clock clock;
    private final Duration period;
    private final ScheduledExecutorService threads;

    private static final class Tracked {
        volatile BackstageTopology topology;
        ScheduledFuture<?> turns;

        Tracked(BackstageTopology topology) {
            this.topology = topology;
        }
    }

    public ScheduleFiring(KubernetesClient client, EventRecorder events, Clock clock, Duration period,
            Function<ProviderSettings, Provider> opener) {
        this(client, new ConnectionSecrets(client), events, clock, period, opener);
    }

    /** @param secrets the operator's one Secret read path (shared with the topology reconciler) */
    public ScheduleFiring(KubernetesClient client, ConnectionSecrets secrets, EventRecorder events, Clock clock,
            Duration period, Function<ProviderSettings, Provider> opener) {
        super(Void.class, NAME);
        this.events = Objects.requireNonNull(events, "events");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.period = Objects.requireNonNull(period, "period");
        this.providers = new ProbeProviders(secrets, opener, clock, Duration.ofMinutes(1), Duration.ofSeconds(5));
        this.dedupeProviders = new ProbeProviders(secrets, opener, clock, Duration.ofMinutes(1), Duration.ofSeconds(5));
        this.patcher = new StatusPatcher<>(client, BackstageTopology.class);
        this.threads = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "schedule-firing");
            thread.setDaemon(true);
            return thread;
        });
    }

    public static ScheduleFiring create(KubernetesClient client, ConnectionSecrets secrets, EventRecorder events,
            Clock clock) {
        return new ScheduleFiring(client, secrets, events, clock, PERIOD, Providers::create);
    }

    /** Starts firing {@code topology}'s schedules, or hands its turn the newest copy. Never blocks on a broker. */
    public void track(BackstageTopology reconciled) {
        BackstageTopology topology = Serialization.clone(reconciled);
        ResourceID id = ResourceID.fromResource(topology);
        boolean hasSchedules = !schedules(topology).isEmpty();
        Tracked current = tracked.get(id);
        if (current != null) {
            current.topology = topology;
            if (!hasSchedules) {
                stop(id, "no schedules left");
                threads.execute(() -> turnQuietly(topology)); // clears status.schedules
            }
            return;
        }
        if (!hasSchedules) {
            if (topology.getStatus() != null && topology.getStatus().getScheduleSummary() != null) {
                threads.execute(() -> turnQuietly(topology));
            }
            return;
        }
        Tracked fresh = new Tracked(topology);
        if (tracked.putIfAbsent(id, fresh) == null) {
            fresh.turns = threads.scheduleWithFixedDelay(() -> turnSafely(id), 0, period.toMillis(),
                    TimeUnit.MILLISECONDS);
            LOG.info("firing {} schedule(s) of topology {}", schedules(topology).size(), id);
        }
    }

    private void turnQuietly(BackstageTopology topology) {
        try {
            turn(topology);
        } catch (RuntimeException e) {
            LOG.warn("clearing the schedule status of topology {}/{} failed: {}", topology.getMetadata().getNamespace(),
                    topology.getMetadata().getName(), e.toString());
        }
    }

    private void turnSafely(ResourceID id) {
        try {
            Tracked entry = tracked.get(id);
            if (entry == null) {
                return;
            }
            BackstageTopology topology = entry.topology;
            if (topology.getStatus() == null) {
                // The reconcile hands its copy over before it writes the first status, and that write starts no
                // reconcile (the controller is generation-aware): read the topology instead of waiting for the next
                // poll to hand over a newer copy (30 s, during which no tick would fire).
                BackstageTopology read = patcher.read(topology);
                if (read == null) {
                    return;
                }
                topology = read;
            }
            entry.topology = turn(topology).orElse(topology);
        } catch (RuntimeException e) {
            LOG.warn("schedule turn of topology {} failed; next turn in {}: {}", id, period, e.toString());
        }
    }

    /**
     * One turn for {@code topology} at the clock's time: fires what is due and writes {@code status.schedules} when
     * it changed. The loop calls it every period; a test on a simulated clock calls it directly.
     *
     * @return the topology as written, when a status write happened
     */
    public Optional<BackstageTopology> turn(BackstageTopology topology) {
        List<ScheduleSpec> specs = schedules(topology);
        Instant now = clock.instant();
        List<ScheduleTurn.Notice> notices = new ArrayList<>();
        var written = patcher.update(topology, copy -> {
            notices.clear(); // a conflict re-runs the change: only the last attempt's notices are told
            if (copy.getStatus() == null) {
                return null; // not reconciled yet: the reconciler writes the first status, firing starts after it
            }
            List<ScheduleStatus> statuses = specs.isEmpty() ? null : next(copy, specs, now, notices);
            copy.getStatus().setSchedules(statuses);
            copy.getStatus().setScheduleSummary(specs.isEmpty() ? null : summary(specs));
            copy.getStatus().setLastFiredTick(statuses == null ? null : statuses.stream()
                    .map(ScheduleStatus::getLastFiredTick).filter(Objects::nonNull).map(Instant::parse)
                    .max(Instant::compareTo).map(Instant::toString).orElse(null));
            return null;
        });
        for (ScheduleTurn.Notice notice : notices) {
            LOG.warn("topology {}/{}: {}", topology.getMetadata().getNamespace(), topology.getMetadata().getName(),
                    notice.message());
            events.record(topology, notice.type(), notice.reason(), notice.message());
        }
        return written.map(StatusPatcher.Written::resource);
    }

    private static String summary(List<ScheduleSpec> specs) {
        long suspended = specs.stream().filter(s -> Boolean.TRUE.equals(s.getSuspend())).count();
        return specs.size() + (suspended == 0 ? "" : " (" + suspended + " suspended)");
    }

    private List<ScheduleStatus> next(BackstageTopology topology, List<ScheduleSpec> specs, Instant now,
            List<ScheduleTurn.Notice> notices) {
        List<ScheduleStatus> previous = topology.getStatus().getSchedules() == null ? List.of()
                : topology.getStatus().getSchedules();
        List<ScheduleStatus> statuses = new ArrayList<>();
        for (ScheduleSpec spec : specs) {
            ScheduleStatus before = previous.stream().filter(s -> spec.getName().equals(s.getName())).findFirst()
                    .orElse(null);
            Schedule schedule;
            try {
                schedule = ScheduleSpecs.toSchedule(spec);
            } catch (InvalidScheduleException e) {
                // Only without the admission webhook: the CRD cannot parse cron expressions.
                ScheduleStatus invalid = before == null ? new ScheduleStatus(spec.getName()) : before.copy();
                invalid.setLastError(e.getMessage());
                invalid.setNextTick(null);
                if (before == null || !e.getMessage().equals(before.getLastError())) {
                    notices.add(new ScheduleTurn.Notice(EventRecorder.WARNING, ScheduleTurn.INVALID_SCHEDULE,
                            e.getMessage()));
                }
                statuses.add(invalid);
                continue;
            }
            ScheduleTurn.Result result = ScheduleTurn.run(spec, schedule, before, now,
                    (s, tick) -> fire(topology, s, tick));
            notices.addAll(result.notices());
            statuses.add(result.status());
        }
        return statuses;
    }

    private CronTick.Outcome fire(BackstageTopology topology, Schedule schedule, Instant tick) {
        try (ProbeProviders.Lease jobs = providers.lease(topology)) {
            Optional<DedupeCapability> own = jobs.provider().dedupe();
            if (own.isPresent()) {
                return fire(schedule, tick, own.get(), jobs);
            }
            BackstageTopology dedupeSide = suppliedDedupe(topology).orElseThrow(() -> new IllegalStateException(
                    "provider " + topology.getSpec().getProvider().wire() + " has no dedupe: set"
                            + " spec.capabilities.dedupe (backend redis)"));
            try (ProbeProviders.Lease dedupe = dedupeProviders.lease(dedupeSide)) {
                DedupeCapability capability = dedupe.provider().dedupe().orElseThrow();
                try {
                    return CronTick.fire(schedule, tick, capability, jobs.provider().jobs(), clock);
                } catch (CronTick.ClaimedNotPublishedException e) {
                    jobs.invalidate();
                    throw e;
                } catch (RuntimeException e) {
                    dedupe.invalidate();
                    throw e;
                }
            }
        } catch (BrokerConnectionException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    private CronTick.Outcome fire(Schedule schedule, Instant tick, DedupeCapability dedupe,
            ProbeProviders.Lease lease) {
        try {
            return CronTick.fire(schedule, tick, dedupe, lease.provider().jobs(), clock);
        } catch (RuntimeException e) {
            lease.invalidate();
            throw e;
        }
    }

    /**
     * The supplied dedupe backend seen as a Redis topology of its own (its key prefix, by default the topology's, and
     * the dedupe Secret, as the workers' runtime.yaml has it), so its connection is leased and cached like the jobs
     * provider's.
     */
    private static Optional<BackstageTopology> suppliedDedupe(BackstageTopology topology) {
        BackstageTopologySpec spec = topology.getSpec();
        if (spec.getCapabilities() == null || spec.getCapabilities().getDedupe() == null) {
            return Optional.empty();
        }
        BackstageTopology side = new BackstageTopology();
        side.setMetadata(Serialization.clone(topology.getMetadata()));
        side.getMetadata().setUid(topology.getMetadata().getUid() + "-dedupe");
        BackstageTopologySpec sideSpec = new BackstageTopologySpec();
        sideSpec.setProvider(ProviderType.REDIS);
        sideSpec.setConnection(spec.getCapabilities().getDedupe().getConnection());
        String prefix = spec.getCapabilities().getDedupe().getKeyPrefix();
        sideSpec.setKeyPrefix(prefix == null ? spec.getKeyPrefix() : prefix);
        sideSpec.setConsumerGroup(spec.getConsumerGroup());
        side.setSpec(sideSpec);
        return Optional.of(side);
    }

    private static List<ScheduleSpec> schedules(BackstageTopology topology) {
        return topology.getSpec() == null || topology.getSpec().getSchedules() == null ? List.of()
                : topology.getSpec().getSchedules();
    }

    /** Topologies whose schedules are fired now (for tests and metrics). */
    public int size() {
        return tracked.size();
    }

    private void stop(ResourceID id, String why) {
        Tracked entry = tracked.remove(id);
        if (entry != null) {
            if (entry.turns != null) {
                entry.turns.cancel(false);
            }
            LOG.info("stopped firing the schedules of topology {} ({})", id, why);
            Set<String> inUse = tracked.values().stream().map(t -> t.topology.getMetadata().getUid())
                    .collect(java.util.stream.Collectors.toSet());
            providers.retainOnly(inUse);
            dedupeProviders.retainOnly(inUse.stream().map(uid -> uid + "-dedupe")
                    .collect(java.util.stream.Collectors.toSet()));
        }
    }

    @Override
    public void onResourceUpdated(BackstageTopology newResource, BackstageTopology oldResource) {
        Tracked entry = tracked.get(ResourceID.fromResource(newResource));
        if (entry != null) {
            entry.topology = Serialization.clone(newResource);
        }
    }

    @Override
    public void onResourceDeleted(BackstageTopology resource) {
        stop(ResourceID.fromResource(resource), "deleted");
    }

    @Override
    public Set<Void> getSecondaryResources(BackstageTopology primary) {
        return Set.of();
    }

    @Override
    public void stop() throws OperatorException {
        tracked.keySet().forEach(id -> stop(id, "operator stopping"));
        threads.shutdownNow();
        providers.close();
        dedupeProviders.close();
        LOG.info("schedule firing stopped");
        super.stop();
    }
}
