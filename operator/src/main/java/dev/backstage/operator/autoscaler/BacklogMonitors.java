package dev.backstage.operator.autoscaler;

import dev.backstage.operator.broker.ProbeProviders;
import dev.backstage.operator.events.EventRecorder;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.scaling.ScalingDecider;
import dev.backstage.operator.status.StatusPatcher;
import dev.backstage.operator.broker.ConnectionSecrets;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.OperatorException;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import io.javaoperatorsdk.operator.processing.event.source.ResourceEventAware;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The backlog monitors of all pools: one {@link BacklogMonitor} per pool, on a small shared scheduler
 * ({@code backlog-monitor-N} threads), with the probe connections they share ({@link ProbeProviders}).
 *
 * <p>Lifecycle, tied to JOSDK's: the pool reconciler calls {@link #track} on every reconcile, which starts a
 * monitor for a new pool or hands it the newest pool and topology; it returns at once (the broker is only ever
 * called from monitor threads). Registered with the pool controller as an event source, it also hears of every
 * pool update (a fresher copy for the monitor) and deletion (the monitor stops, and a topology's connection closes
 * when no pool uses it any more), and it is stopped with the operator. It emits no events of its own. Monitors
 * start from reconciles only, so only the leader measures and writes.
 */
public final class BacklogMonitors extends AbstractEventSource<Void, BackstageWorkerPool>
        implements ResourceEventAware<BackstageWorkerPool> {
    public static final String NAME = "backlog-monitors";
    private static final Logger LOG = LoggerFactory.getLogger(BacklogMonitors.class);
    /** How often a pool's pods are listed to measure their start-up. */
    static final java.time.Duration STARTUP_REFRESH = java.time.Duration.ofMinutes(1);

    private final ConcurrentMap<ResourceID, BacklogMonitor> monitors = new ConcurrentHashMap<>();
    private final ProbeProviders providers;
    private final BacklogMeasurer measurer;
    private final PodStartupMeter startups;
    private final StatusPatcher<BackstageWorkerPool> patcher;
    private final ScalingDecider decider = new ScalingDecider();
    private final EventRecorder events;
    private final Clock clock;
    private final AutoscalerSettings settings;
    private final ScheduledExecutorService scheduler;
    /** The pools' figures as gauges, once {@link #exportTo} named a registry. */
    private volatile PoolMetrics metrics;

    /**
     * @param opener creates providers by name, normally {@code Providers::create}
     */
    public BacklogMonitors(KubernetesClient client, EventRecorder events, Clock clock, AutoscalerSettings settings,
            Function<ProviderSettings, Provider> opener) {
        this(client, new ConnectionSecrets(client), events, clock, settings, opener);
    }

    /**
     * @param secrets the operator's one Secret read path (shared with the topology reconciler)
     * @param opener  creates providers by name, normally {@code Providers::create}
     */
    public BacklogMonitors(KubernetesClient client, ConnectionSecrets secrets, EventRecorder events, Clock clock,
            AutoscalerSettings settings, Function<ProviderSettings, Provider> opener) {
        super(Void.class, NAME);
        this.events = Objects.requireNonNull(events, "events");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.providers = new ProbeProviders(secrets, opener, clock, settings.secretRefresh(),
                settings.reconnectDelay());
        this.measurer = new BacklogMeasurer(providers, clock);
        this.startups = new PodStartupMeter(client, clock, STARTUP_REFRESH);
        this.patcher = new StatusPatcher<>(client, BackstageWorkerPool.class);
        this.scheduler = Executors.newScheduledThreadPool(settings.threads(), threads());
    }

    public static BacklogMonitors create(KubernetesClient client, ConnectionSecrets secrets, EventRecorder events,
            Clock clock, AutoscalerSettings settings) {
        return new BacklogMonitors(client, secrets, events, clock, settings, Providers::create);
    }

    /**
     * Exports every pool's backlog, desired replicas and dead letters as gauges ({@link PoolMetrics}) on
     * {@code registry}: the operator's {@code /metrics}.
     */
    public void exportTo(io.micrometer.core.instrument.MeterRegistry registry) {
        metrics = new PoolMetrics(registry);
    }

    /** Starts monitoring {@code pool}, or updates what its monitor knows. Never blocks on a broker. */
    public void track(BackstageWorkerPool reconciled, Optional<BackstageTopology> topology) {
        // The reconciler goes on to change its copy; the monitor reads this one from another thread.
        BackstageWorkerPool pool = Serialization.clone(reconciled);
        PoolMetrics exported = metrics;
        if (exported != null) {
            exported.record(pool);
        }
        ResourceID id = ResourceID.fromResource(pool);
        BacklogMonitor existing = monitors.get(id);
        if (existing != null) {
            String before = topologyUid(existing.snapshot().topology());
            existing.update(pool, topology.orElse(null));
            if (!Objects.equals(before, topologyUid(topology.orElse(null)))) {
                dropUnusedConnections();
            }
            return;
        }
        BacklogMonitor monitor = new BacklogMonitor(new BacklogMonitor.Snapshot(pool, topology.orElse(null)),
                measurer, startups, patcher, decider, events, scheduler, clock, settings.statusRefresh());
        if (monitors.putIfAbsent(id, monitor) == null) {
            LOG.info("backlog monitor started for pool {}", id);
            monitor.start();
        } else {
            monitors.get(id).update(pool, topology.orElse(null)); // two reconciles raced: one monitor wins
        }
    }

    /** Pools monitored now (for tests and metrics). */
    public int size() {
        return monitors.size();
    }

    /** Topology connections open now (for tests and metrics). */
    public int openConnections() {
        return providers.size();
    }

    @Override
    public void onResourceUpdated(BackstageWorkerPool newResource, BackstageWorkerPool oldResource) {
        BacklogMonitor monitor = monitors.get(ResourceID.fromResource(newResource));
        PoolMetrics exported = metrics;
        if (exported != null) {
            exported.record(newResource);
        }
        if (monitor != null) {
            monitor.updatePool(newResource);
        }
    }

    @Override
    public void onResourceDeleted(BackstageWorkerPool resource) {
        PoolMetrics exported = metrics;
        if (exported != null) {
            exported.remove(resource);
        }
        ResourceID id = ResourceID.fromResource(resource);
        BacklogMonitor monitor = monitors.remove(id);
        if (monitor != null) {
            monitor.stop();
            startups.forget(resource);
            LOG.info("backlog monitor stopped for pool {} (deleted)", id);
            dropUnusedConnections();
        }
    }

    @Override
    public Set<Void> getSecondaryResources(BackstageWorkerPool primary) {
        return Set.of();
    }

    @Override
    public void stop() throws OperatorException {
        monitors.values().forEach(BacklogMonitor::stop);
        monitors.clear();
        scheduler.shutdownNow();
        providers.close();
        LOG.info("backlog monitors stopped");
        super.stop();
    }

    private void dropUnusedConnections() {
        providers.retainOnly(monitors.values().stream()
                .map(m -> topologyUid(m.snapshot().topology()))
                .filter(Objects::nonNull)
                .collect(Collectors.toSet()));
    }

    private static String topologyUid(BackstageTopology topology) {
        return topology == null ? null : topology.getMetadata().getUid();
    }

    private static ThreadFactory threads() {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, "backlog-monitor-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
