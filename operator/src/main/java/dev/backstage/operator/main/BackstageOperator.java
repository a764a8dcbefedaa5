package dev.backstage.operator.main;

import dev.backstage.operator.admission.TopologyLookup;
import dev.backstage.operator.autoscaler.AutoscalerSettings;
import dev.backstage.operator.autoscaler.BacklogMonitors;
import dev.backstage.operator.broker.ConnectionSecrets;
import dev.backstage.operator.events.EventRecorder;
import dev.backstage.operator.pool.StatusHeartbeat;
import dev.backstage.operator.pool.WorkerPoolReconciler;
import dev.backstage.operator.schedule.ScheduleFiring;
import dev.backstage.operator.topology.BrokerConnections;
import dev.backstage.operator.topology.TopologyBroker;
import dev.backstage.operator.topology.TopologyReconciler;
import dev.backstage.operator.topology.TopologySettings;
import dev.backstage.runtime.spi.Providers;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.ConfigurationServiceOverrider;
import io.javaoperatorsdk.operator.api.config.ControllerConfigurationOverrider;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JOSDK {@link Operator} with Backstage's reconcilers, assembled the same way for the container main and
 * for tests, so the tests run the configuration that ships.
 *
 * <p>Server-side apply, as JOSDK does it by default, for the dependents (the Deployment and the ConfigMap are
 * applied and matched through their managed fields) and for the primary's status: each writer applies only the
 * status fields it owns (see {@link dev.backstage.operator.model.BackstageWorkerPoolStatus}), so the API server
 * keeps one owner per field. The fabric8 CRUD mock used by the fast reconciler tests has no SSA; those tests
 * pass their own {@link ConfigurationServiceOverrider} settings, and the code paths that ship are tested on the
 * real API server ({@code e2e}, {@code bin/control-plane}).
 *
 * <p>Losing the Lease exits the process (when {@link OperatorSettings#exitWhenLeadershipLost()}), so a deposed
 * leader never reconciles beside the new one. JOSDK's own exit-on-loss is not used: it calls
 * {@code System.exit} on the thread that stops leadership, which during a SIGTERM is the shutdown hook itself,
 * and the JVM then hangs. Here a deliberate {@link #stop()} is not a loss, and the exit runs on its own thread.
 */
public final class BackstageOperator implements AutoCloseable {
    public static final String COMPONENT = "backstage-operator";
    private static final Logger LOG = LoggerFactory.getLogger(BackstageOperator.class);

    private final Operator operator;
    private final OperatorSettings settings;
    private final AtomicBoolean stopping = new AtomicBoolean();
    private BacklogMonitors backlogMonitors;
    private WorkerPoolReconciler pools;
    private EventRecorder events;

    private BackstageOperator(
            KubernetesClient client,
            OperatorSettings settings,
            Metrics metrics,
            Consumer<ConfigurationServiceOverrider> overrides) {
        this.settings = settings;
        this.operator = new Operator(o -> {
            o.withKubernetesClient(client)
                    .withMetrics(metrics)
                    // The client is the caller's: tests share one across operators, the main closes it itself.
                    .withCloseClientOnStop(false)
                    // Bounded so a stuck reconcile cannot hold the pod past its termination grace period.
                    .withReconciliationTerminationTimeout(Duration.ofSeconds(20));
            if (settings.leaderElection()) {
                LeaseSettings lease = settings.lease();
                o.withLeaderElectionConfiguration(new LeaderElectionConfiguration(
                        lease.name(),
                        lease.namespace(),
                        lease.duration(),
                        lease.renewDeadline(),
                        lease.retryPeriod(),
                        settings.identity(),
                        new LeaderCallbacks(
                                () -> LOG.info("{} leads (lease {})", settings.identity(), lease.name()),
                                this::leadershipEnded,
                                leader -> LOG.info("leader is now {}", leader)),
                        false));
            }
            overrides.accept(o);
        });
    }

    /**
     * The production operator: pool and topology reconcilers (topology settings from the environment, see
     * {@link TopologySettings#fromEnv}); call {@link #start()}.
     */
    public static BackstageOperator create(
            KubernetesClient client, OperatorSettings settings, Metrics metrics, Clock clock) {
        return create(
                client, settings, metrics, clock, Optional.of(TopologySettings.fromEnv(System.getenv())), o -> {});
    }

    /**
     * @param topologies the topology reconciler's settings; empty leaves it out (tests of pools alone, which write
     *                   topology status themselves)
     * @param overrides  JOSDK settings applied last: none in production; the mock API's tests turn server-side apply
     *                   off here, since the mock does not implement it
     */
    public static BackstageOperator create(
            KubernetesClient client,
            OperatorSettings settings,
            Metrics metrics,
            Clock clock,
            Optional<TopologySettings> topologies,
            Consumer<ConfigurationServiceOverrider> overrides) {
        BackstageOperator backstage = new BackstageOperator(client, settings, metrics, overrides);
        EventRecorder events = new EventRecorder(client, COMPONENT, settings.identity(), clock);
        backstage.events = events;
        // One Secret read path for the topology reconciler, the backlog probes and the schedules: a Secret read is
        // used for one topology poll interval by all of them.
        ConnectionSecrets secrets = new ConnectionSecrets(
                client,
                clock,
                topologies.map(TopologySettings::pollInterval).orElse(TopologySettings.DEFAULT_POLL_INTERVAL));
        // Stopped with the pool controller (it is one of its event sources): monitors, threads, broker connections.
        backstage.backlogMonitors =
                BacklogMonitors.create(client, secrets, events, clock, AutoscalerSettings.defaults());
        backstage.pools = new WorkerPoolReconciler(
                events,
                clock,
                backstage.backlogMonitors,
                settings.workerLogging(),
                StatusHeartbeat.fromEnv(System.getenv(), clock));
        backstage.register(backstage.pools);
        if (topologies.isPresent()) {
            // Closed by the reconciler's lifecycle event source when the operator stops.
            BrokerConnections connections = new BrokerConnections();
            TopologyBroker broker = new TopologyBroker(secrets, connections, Providers::create);
            // Stopped with the topology controller (one of its event sources): turns, thread, broker connections.
            ScheduleFiring schedules = ScheduleFiring.create(client, secrets, events, clock);
            backstage.register(new TopologyReconciler(broker, connections, events, topologies.get(), clock, schedules));
        }
        return backstage;
    }

    /**
     * JOSDK's Micrometer metrics as the operator exports them: per controller, not per resource. Per-resource meters
     * (name and namespace labels on every JOSDK meter) made /metrics 43 MB and filled the heap with 1,000 pools
     * ({@code bin/bench operator-scale}); the dashboard and alerts aggregate per controller.
     */
    public static Metrics metrics(MeterRegistry registry) {
        return MicrometerMetrics.newMicrometerMetricsBuilder(registry)
                .notCollectingMetricsPerResource()
                .build();
    }

    /** The operator's Event recorder (the console records its users' actions with it). */
    public EventRecorder events() {
        return events;
    }

    /** The per-pool backlog monitors and autoscalers. */
    public BacklogMonitors backlogMonitors() {
        return backlogMonitors;
    }

    /**
     * The topologies as the pool controller's informer caches them, for the admission webhook: informers run on
     * every replica from {@link #start()} on, leader or not, so a standby replica answers admission from its cache
     * too. Empty until then (the webhook reads from the API server meanwhile).
     */
    public TopologyLookup cachedTopologies() {
        return pools::cachedTopology;
    }

    /** Registers a reconciler on the configured namespaces. */
    public <P extends HasMetadata> void register(Reconciler<P> reconciler) {
        Consumer<ControllerConfigurationOverrider<P>> namespaces = settings.watchesAllNamespaces()
                ? ControllerConfigurationOverrider::watchingAllNamespaces
                : o -> o.settingNamespaces(settings.watchNamespaces());
        operator.register(reconciler, namespaces);
    }

    public Operator operator() {
        return operator;
    }

    public void start() {
        operator.start();
    }

    /** Stops reconciling and releases the Lease; not a leadership loss. */
    public void stop() {
        stopping.set(true);
        operator.stop();
        events.close(); // after the reconcilers: the Events they recorded last are written
    }

    @Override
    public void close() {
        stop();
    }

    private void leadershipEnded() {
        if (stopping.get()) {
            LOG.info("released the lease {}", settings.lease().name());
            return;
        }
        if (!settings.exitWhenLeadershipLost()) {
            LOG.warn(
                    "lost the lease {}; not exiting (exitWhenLeadershipLost is off)",
                    settings.lease().name());
            return;
        }
        LOG.error(
                "lost the lease {}; exiting so that only the new leader reconciles",
                settings.lease().name());
        Thread exit = new Thread(() -> System.exit(1), "lost-lease-exit");
        exit.start();
    }
}
