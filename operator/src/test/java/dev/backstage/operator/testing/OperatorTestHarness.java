package dev.backstage.operator.testing;

import dev.backstage.operator.main.BackstageOperator;
import dev.backstage.operator.main.LeaseSettings;
import dev.backstage.operator.main.OperatorSettings;
import dev.backstage.operator.topology.TopologySettings;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * One mock API server (CRUD mode, CRDs loaded), one fake deployment controller and one operator assembled by
 * {@link BackstageOperator} exactly as in production (SSA off, all namespaces, no leader election).
 *
 * <p>Start one per test class and give every test its own namespace:
 * <pre>{@code
 * static OperatorTestHarness harness;
 * @BeforeAll static void start() { harness = OperatorTestHarness.start(); }
 * @AfterAll static void stop() { harness.close(); }
 * @Test void something() { String ns = harness.newNamespace("pool"); ... }
 * }</pre>
 * The topology reconciler joins through {@link #startWithTopologies}; others (autoscaler) through
 * {@link #start(Consumer)}, which runs before start-up.
 */
public final class OperatorTestHarness implements AutoCloseable {
    private final MockKubernetes mock;
    private final FakeDeploymentController deployments;
    private final BackstageOperator operator;
    private final MeterRegistry meters;

    private OperatorTestHarness(
            MockKubernetes mock,
            FakeDeploymentController deployments,
            BackstageOperator operator,
            MeterRegistry meters) {
        this.mock = mock;
        this.deployments = deployments;
        this.operator = operator;
        this.meters = meters;
    }

    public static OperatorTestHarness start() {
        return start(operator -> {});
    }

    /**
     * @param moreRegistrations registers further reconcilers ({@link BackstageOperator#register}) before the
     *                          operator starts
     */
    public static OperatorTestHarness start(Consumer<BackstageOperator> moreRegistrations) {
        return start(SETTINGS, new SimpleMeterRegistry(), moreRegistrations);
    }

    /**
     * With other settings (namespaces, leader election) or another registry (e.g. Prometheus, to scrape); without the
     * topology reconciler.
     */
    public static OperatorTestHarness start(
            OperatorSettings settings, MeterRegistry meters, Consumer<BackstageOperator> moreRegistrations) {
        return start(settings, meters, Optional.empty(), moreRegistrations);
    }

    /**
     * With the topology reconciler too (it talks to real brokers), polling as {@code topologies} says. Tests that
     * use it create connection Secrets instead of writing topology status themselves.
     */
    public static OperatorTestHarness startWithTopologies(TopologySettings topologies) {
        return start(SETTINGS, new SimpleMeterRegistry(), Optional.of(topologies), operator -> {});
    }

    private static OperatorTestHarness start(
            OperatorSettings settings,
            MeterRegistry meters,
            Optional<TopologySettings> topologies,
            Consumer<BackstageOperator> moreRegistrations) {
        MockKubernetes mock = MockKubernetes.start();
        FakeDeploymentController deployments = new FakeDeploymentController(mock.client());
        // Per resource here (production exports per controller, BackstageOperator.metrics): the tests count the
        // reconciles of one pool (successfulReconciles).
        Metrics metrics = MicrometerMetrics.newPerResourceCollectingMicrometerMetricsBuilder(meters)
                .build();
        BackstageOperator operator = BackstageOperator.create(
                mock.client(),
                settings,
                metrics,
                Clock.systemUTC(),
                topologies,
                MockKubernetes::withoutServerSideApply);
        moreRegistrations.accept(operator);
        operator.start();
        return new OperatorTestHarness(mock, deployments, operator, meters);
    }

    /** All namespaces, no leader election (the mock has Leases, but one operator needs none). */
    public static final OperatorSettings SETTINGS =
            new OperatorSettings(Set.of(), false, LeaseSettings.defaults(null), "test-operator", 0, false);

    public KubernetesClient client() {
        return mock.client();
    }

    /** The registry the operator's metrics go to (for leak checks on metric labels). */
    public MeterRegistry meters() {
        return meters;
    }

    public BackstageOperator operator() {
        return operator;
    }

    /**
     * Reconciles of one resource that finished without error so far (JOSDK's per-resource counter). Lets a test
     * wait until a reconcile has happened before asserting that it changed nothing.
     */
    public double successfulReconciles(String namespace, String name) {
        return meters
                .find("operator.sdk.reconciliations.success")
                .tag("namespace", namespace)
                .tag("name", name)
                .counters()
                .stream()
                .mapToDouble(Counter::count)
                .sum();
    }

    /** A fresh namespace (created in the mock) so tests sharing the harness never see each other's objects. */
    public String newNamespace(String base) {
        String name = UniqueNames.prefix(base).toLowerCase();
        client().namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .build())
                .create();
        return name;
    }

    @Override
    public void close() {
        operator.stop();
        deployments.close();
        mock.close();
    }
}
