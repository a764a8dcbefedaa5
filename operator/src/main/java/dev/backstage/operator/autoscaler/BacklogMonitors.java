package dev.backstage.operator.autoscaler;

import dev.backstage.operator.broker.ConnectionSecrets;
import dev.backstage.operator.broker.ProbeProviders;
import dev.backstage.operator.events.EventRecorder;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.polling.PerResourcePoller;
import dev.backstage.operator.scaling.ScalingDecider;
import dev.backstage.operator.status.StatusPatcher;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The backlog monitors of all pools: one {@link BacklogMonitor} per pool on the operator's one per-resource polling
 * mechanism ({@link PerResourcePoller}, {@code backlog-monitor-N} threads), with the probe connections they share
 * ({@link ProbeProviders}).
 *
 * <p>The pool reconciler calls {@link #track} on every reconcile, which starts a monitor for a new pool or hands it
 * the newest pool and topology; it returns at once (the broker is only ever called from monitor threads). Monitors
 * start from reconciles only, so only the leader measures and writes. As the pool controller's event source it
 * hears of every pool update (a fresher copy for the monitor, and the exported gauges) and deletion (the monitor
 * stops, and a topology's connection closes when no pool uses it any more); it stops with the operator.
 */
public final class BacklogMonitors extends PerResourcePoller<BackstageWorkerPool, BacklogMonitor> {
    public static final String NAME = "backlog-monitors";
    private static final Logger LOG = LoggerFactory.getLogger(BacklogMonitors.class);
    /** How often a pool's pods are listed to measure their start-up. */
    static final java.time.Duration STARTUP_REFRESH = java.time.Duration.ofMinutes(1);

    private final ProbeProviders providers;
    private final BacklogMeasurer measurer;
    private final PodStartupMeter startups;
    private final StatusPatcher<BackstageWorkerPool> patcher;
    private final ScalingDecider decider = new ScalingDecider();
    private final EventRecorder events;
    private final Clock clock;
    private final AutoscalerSettings settings;
    /** The pools' figures as gauges, once {@link #exportTo} named a registry. */
    private volatile PoolMetrics metrics;

    /**
     * @param opener creates providers by name, normally {@code Providers::create}
     */
    public BacklogMonitors(
            KubernetesClient client,
            EventRecorder events,
            Clock clock,
            AutoscalerSettings settings,
            Function<ProviderSettings, Provider> opener) {
        this(client, new ConnectionSecrets(client), events, clock, settings, opener);
    }

    /**
     * @param secrets the operator's one Secret read path (shared with the topology reconciler)
     * @param opener  creates providers by name, normally {@code Providers::create}
     */
    public BacklogMonitors(
            KubernetesClient client,
            ConnectionSecrets secrets,
            EventRecorder events,
            Clock clock,
            AutoscalerSettings settings,
            Function<ProviderSettings, Provider> opener) {
        super(NAME, settings.threads(), "backlog-monitor");
        this.events = Objects.requireNonNull(events, "events");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.providers =
                new ProbeProviders(secrets, opener, clock, settings.secretRefresh(), settings.reconnectDelay());
        this.measurer = new BacklogMeasurer(providers, clock);
        this.startups = new PodStartupMeter(client, clock, STARTUP_REFRESH);
        this.patcher = new StatusPatcher<>(client, BackstageWorkerPool.class, AutoscalerStatus.OWNED);
    }

    public static BacklogMonitors create(
            KubernetesClient client,
            ConnectionSecrets secrets,
            EventRecorder events,
            Clock clock,
            AutoscalerSettings settings) {
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
        Optional<BacklogMonitor> existing = polled(id);
        if (existing.isPresent()) {
            String before = topologyUid(existing.get().snapshot().topology());
            existing.get().update(pool, topology.orElse(null));
            if (!Objects.equals(before, topologyUid(topology.orElse(null)))) {
                dropUnusedConnections();
            }
            return;
        }
        BacklogMonitor monitor = new BacklogMonitor(
                new BacklogMonitor.Snapshot(pool, topology.orElse(null)),
                measurer,
                startups,
                patcher,
                decider,
                events,
                clock,
                settings.statusRefresh());
        BacklogMonitor started = startPolling(id, () -> monitor);
        if (started == monitor) {
            LOG.info("backlog monitor started for pool {}", id);
        } else {
            started.update(pool, topology.orElse(null)); // two reconciles raced: one monitor wins
        }
    }

    /** Topology connections open now (for tests and metrics). */
    public int openConnections() {
        return providers.size();
    }

    @Override
    protected void updated(BackstageWorkerPool pool) {
        PoolMetrics exported = metrics;
        if (exported != null) {
            exported.record(pool);
        }
    }

    @Override
    protected void deleted(BackstageWorkerPool pool, boolean wasPolled) {
        PoolMetrics exported = metrics;
        if (exported != null) {
            exported.remove(pool);
        }
        if (wasPolled) {
            startups.forget(pool);
            LOG.info("backlog monitor stopped for pool {} (deleted)", ResourceID.fromResource(pool));
            dropUnusedConnections();
        }
    }

    @Override
    protected void closing() {
        providers.close();
    }

    private void dropUnusedConnections() {
        providers.retainOnly(polled().stream()
                .map(m -> topologyUid(m.snapshot().topology()))
                .filter(Objects::nonNull)
                .collect(Collectors.toSet()));
    }

    private static String topologyUid(BackstageTopology topology) {
        return topology == null ? null : topology.getMetadata().getUid();
    }
}
