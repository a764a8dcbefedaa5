package dev.backstage.operator.main;

import static dev.backstage.operator.testing.BackstageFixtures.createReadyTopology;
import static dev.backstage.operator.testing.BackstageFixtures.pool;
import static dev.backstage.operator.testing.BackstageFixtures.redisTopology;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.testing.OperatorTestHarness;
import dev.backstage.testsupport.MetricNames;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator as OperatorMain assembles it: leader election on a Lease, a namespace list, Micrometer metrics and
 * the health server.
 */
class BackstageOperatorTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String LEASE_NAMESPACE = "backstage-system";
    private static final String WATCHED = UniqueNames.prefix("watched");
    private static final String IGNORED = UniqueNames.prefix("ignored");

    private static OperatorTestHarness harness;
    private static KubernetesClient client;
    private static PrometheusMeterRegistry registry;
    private static HealthServer health;

    @BeforeAll
    static void start() throws Exception {
        registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        LeaseSettings lease = new LeaseSettings(
                "backstage-test-leader",
                LEASE_NAMESPACE,
                LeaseSettings.DEFAULT_DURATION,
                LeaseSettings.DEFAULT_RENEW_DEADLINE,
                LeaseSettings.DEFAULT_RETRY_PERIOD);
        OperatorSettings settings = new OperatorSettings(Set.of(WATCHED), true, lease, "operator-0", 0, false);
        harness = OperatorTestHarness.start(settings, registry, operator -> {});
        client = harness.client();
        health = new HealthServer(0, () -> harness.operator().operator().getRuntimeInfo(), registry);
        health.start();
    }

    @AfterAll
    static void stop() {
        if (health != null) {
            health.close();
        }
        harness.close();
    }

    @Test
    void givenLeaderElection_thenTheOperatorHoldsTheLeaseAndReconciles() {
        Lease lease = await().atMost(WAIT)
                .until(
                        () -> client.leases()
                                .inNamespace(LEASE_NAMESPACE)
                                .withName("backstage-test-leader")
                                .get(),
                        l -> l != null && l.getSpec().getHolderIdentity() != null);
        assertEquals("operator-0", lease.getSpec().getHolderIdentity());

        createReadyTopology(client, redisTopology(WATCHED, "orders", "orders"));
        client.resource(pool(WATCHED, "leader-pool", "orders", "orders")).create();
        await().atMost(WAIT)
                .until(() -> client.apps()
                                .deployments()
                                .inNamespace(WATCHED)
                                .withName("leader-pool")
                                .get()
                        != null);
    }

    @Test
    void givenNamespaceList_thenPoolsElsewhereAreLeftAlone() {
        createReadyTopology(client, redisTopology(IGNORED, "orders", "orders"));
        client.resource(pool(IGNORED, "elsewhere", "orders", "orders")).create();
        createReadyTopology(client, redisTopology(WATCHED, "orders2", "orders"));
        client.resource(pool(WATCHED, "here", "orders2", "orders")).create();

        await().atMost(WAIT)
                .until(() -> client.apps()
                                .deployments()
                                .inNamespace(WATCHED)
                                .withName("here")
                                .get()
                        != null);
        assertNull(client.apps()
                .deployments()
                .inNamespace(IGNORED)
                .withName("elsewhere")
                .get());
        assertNull(
                client.resources(dev.backstage.operator.model.BackstageWorkerPool.class)
                        .inNamespace(IGNORED)
                        .withName("elsewhere")
                        .get()
                        .getStatus(),
                "an unwatched pool gets no status");
    }

    @Test
    void givenARunningOperator_thenHealthReadinessAndMetricsAreServed() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        await().atMost(WAIT).until(() -> get(http, "/readyz").statusCode() == 200);
        assertEquals(200, get(http, "/healthz").statusCode());

        createReadyTopology(client, redisTopology(WATCHED, "metrics", "orders"));
        client.resource(pool(WATCHED, "metrics-pool", "metrics", "orders")).create();
        await().atMost(WAIT).untilAsserted(() -> {
            String metrics = get(http, "/metrics").body();
            assertTrue(
                    metrics.contains("operator_sdk_reconciliations_success_total"),
                    "JOSDK reconcile metrics exported:\n"
                            + metrics.lines()
                                    .filter(l -> l.contains("operator_sdk"))
                                    .toList());
        });
    }

    /** What README-PROPOSED-16.md lists for the operator (JOSDK's Micrometer metrics, as Prometheus names them). */
    static final List<String> DOCUMENTED = List.of(
            "operator_sdk_reconciliations_started_total",
            "operator_sdk_reconciliations_success_total",
            "operator_sdk_reconciliations_executions_backstageworkerpool",
            "operator_sdk_reconciliations_queue_size_backstageworkerpool",
            "operator_sdk_events_received_total",
            "operator_sdk_controllers_execution_reconcile_seconds_bucket",
            "operator_sdk_controllers_execution_reconcile_seconds_count",
            "operator_sdk_controllers_execution_reconcile_seconds_sum",
            "operator_sdk_controllers_execution_reconcile_seconds_max",
            "operator_sdk_controllers_execution_reconcile_success_total");

    @Test
    void givenReconciledPools_thenTheDocumentedAndChartedOperatorMetricNamesAreExposed() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        createReadyTopology(client, redisTopology(WATCHED, "names", "orders"));
        client.resource(pool(WATCHED, "names-pool", "names", "orders")).create();
        await().atMost(WAIT).untilAsserted(() -> {
            Set<String> exposed = MetricNames.exposed(get(http, "/metrics").body());
            Set<String> missing = new TreeSet<>(DOCUMENTED);
            missing.addAll(MetricNames.inDashboards("operator_sdk_"));
            missing.removeAll(exposed);
            assertTrue(
                    missing.isEmpty(),
                    "documented or charted but not exposed: " + missing + "; exposed: "
                            + exposed.stream()
                                    .filter(n -> n.startsWith("operator_sdk"))
                                    .toList());
        });
        System.out.println("operator /metrics names: "
                + MetricNames.exposed(get(http, "/metrics").body()));
        assertFalse(MetricNames.inDashboards("operator_sdk_").isEmpty(), "the dashboard has operator panels");
    }

    private static HttpResponse<String> get(HttpClient http, String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + health.port() + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
