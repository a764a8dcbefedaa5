package dev.backstage.operator.main;

import dev.backstage.operator.events.EventRecorder;
import dev.backstage.operator.pool.WorkerPoolReconciler;
import dev.backstage.operator.topology.BrokerConnections;
import dev.backstage.operator.topology.ConnectionSecrets;
import dev.backstage.operator.topology.TopologyBroker;
import dev.backstage.operator.topology.TopologyReconciler;
import dev.backstage.operator.topology.TopologySettings;
import dev.backstage.runtime.spi.Providers;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.ControllerConfigurationOverrider;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Assembles the JOSDK {@link Operator} with Backstage's reconcilers, the same way for the container main and
 * for tests, so the tests run the configuration that ships.
 *
 * <p>Server-side apply is off for both the primary status and the dependents: the fabric8 mock API server our
 * tests run against does not implement SSA, and running a different patch strategy in production than in tests
 * would leave the shipped path untested. Non-SSA status patches are JSON diffs, which also keeps the reconciler
 * and the autoscaler from overwriting each other's status fields.
 */
public final class BackstageOperator {
    public static final String COMPONENT = "backstage-operator";

    private BackstageOperator() {}

    /**
     * The production operator: pool and topology reconcilers (topology settings from the environment, see
     * {@link TopologySettings#fromEnv}); call {@link Operator#start()} on it.
     */
    public static Operator create(KubernetesClient client, OperatorSettings settings, Metrics metrics, Clock clock) {
        return create(client, settings, metrics, clock, Optional.of(TopologySettings.fromEnv(System.getenv())));
    }

    /**
     * @param topologies the topology reconciler's settings; empty leaves it out (tests of pools alone, which write
     *                   topology status themselves)
     */
    public static Operator create(KubernetesClient client, OperatorSettings settings, Metrics metrics, Clock clock,
            Optional<TopologySettings> topologies) {
        Operator operator = new Operator(o -> {
            o.withKubernetesClient(client)
                    .withMetrics(metrics)
                    .withUseSSAToPatchPrimaryResource(false)
                    .withSSABasedCreateUpdateMatchForDependentResources(false)
                    // The client is the caller's: tests share one across operators, the main closes it itself.
                    .withCloseClientOnStop(false)
                    // Bounded so a stuck reconcile cannot hold the pod past its termination grace period.
                    .withReconciliationTerminationTimeout(Duration.ofSeconds(20));
            if (settings.leaderElection()) {
                o.withLeaderElectionConfiguration(new LeaderElectionConfiguration(
                        settings.leaseName(), settings.leaseNamespace(),
                        LeaderElectionConfiguration.LEASE_DURATION_DEFAULT_VALUE,
                        LeaderElectionConfiguration.RENEW_DEADLINE_DEFAULT_VALUE,
                        LeaderElectionConfiguration.RETRY_PERIOD_DEFAULT_VALUE,
                        settings.identity(), null, settings.exitWhenLeadershipLost()));
            }
        });
        EventRecorder events = new EventRecorder(client, COMPONENT, settings.identity(), clock);
        register(operator, new WorkerPoolReconciler(events, clock), settings);
        if (topologies.isPresent()) {
            // Closed by the reconciler's lifecycle event source when the operator stops.
            BrokerConnections connections = new BrokerConnections();
            TopologyBroker broker = new TopologyBroker(new ConnectionSecrets(client), connections, Providers::create);
            register(operator, new TopologyReconciler(broker, connections, events, topologies.get(), clock), settings);
        }
        return operator;
    }

    /** Registers a reconciler on the configured namespaces. */
    public static <P extends HasMetadata> void register(Operator operator, Reconciler<P> reconciler,
            OperatorSettings settings) {
        Consumer<ControllerConfigurationOverrider<P>> namespaces = settings.watchesAllNamespaces()
                ? ControllerConfigurationOverrider::watchingAllNamespaces
                : o -> o.settingNamespaces(settings.watchNamespaces());
        operator.register(reconciler, namespaces);
    }
}
