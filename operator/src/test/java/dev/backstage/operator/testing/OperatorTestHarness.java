package dev.backstage.operator.testing;

import dev.backstage.operator.main.BackstageOperator;
import dev.backstage.operator.main.OperatorSettings;
import dev.backstage.operator.topology.TopologySettings;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
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
    private final Operator operator;

    private OperatorTestHarness(MockKubernetes mock, FakeDeploymentController deployments, Operator operator) {
        this.mock = mock;
        this.deployments = deployments;
        this.operator = operator;
    }

    public static OperatorTestHarness start() {
        return start(operator -> {});
    }

    /**
     * @param moreRegistrations registers further reconcilers (use {@link BackstageOperator#register} with
     *                          {@link #SETTINGS}) before the operator starts
     */
    public static OperatorTestHarness start(Consumer<Operator> moreRegistrations) {
        return start(SETTINGS, Metrics.NOOP, moreRegistrations);
    }

    /** With other settings (namespaces, leader election) or real metrics; without the topology reconciler. */
    public static OperatorTestHarness start(OperatorSettings settings, Metrics metrics,
            Consumer<Operator> moreRegistrations) {
        return start(settings, metrics, Optional.empty(), moreRegistrations);
    }

    /**
     * With the topology reconciler too (it talks to real brokers), polling as {@code topologies} says. Tests that
     * use it create connection Secrets instead of writing topology status themselves.
     */
    public static OperatorTestHarness startWithTopologies(TopologySettings topologies) {
        return start(SETTINGS, Metrics.NOOP, Optional.of(topologies), operator -> {});
    }

    private static OperatorTestHarness start(OperatorSettings settings, Metrics metrics,
            Optional<TopologySettings> topologies, Consumer<Operator> moreRegistrations) {
        MockKubernetes mock = MockKubernetes.start();
        FakeDeploymentController deployments = new FakeDeploymentController(mock.client());
        Operator operator = BackstageOperator.create(mock.client(), settings, metrics, Clock.systemUTC(), topologies);
        moreRegistrations.accept(operator);
        operator.start();
        return new OperatorTestHarness(mock, deployments, operator);
    }

    /** All namespaces, no leader election (the mock has Leases, but one operator needs none). */
    public static final OperatorSettings SETTINGS =
            new OperatorSettings(Set.of(), false, OperatorSettings.DEFAULT_LEASE_NAME, null, "test-operator", 0, false);

    public KubernetesClient client() {
        return mock.client();
    }

    public Operator operator() {
        return operator;
    }

    /** A fresh namespace (created in the mock) so tests sharing the harness never see each other's objects. */
    public String newNamespace(String base) {
        String name = UniqueNames.prefix(base).toLowerCase();
        client().namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
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
