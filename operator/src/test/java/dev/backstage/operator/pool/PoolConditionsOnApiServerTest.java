package dev.backstage.operator.pool;

import static dev.backstage.operator.testing.BackstageFixtures.createReadyTopology;
import static dev.backstage.operator.testing.BackstageFixtures.pool;
import static dev.backstage.operator.testing.BackstageFixtures.redisTopology;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.backstage.operator.main.BackstageOperator;
import dev.backstage.operator.main.LeaseSettings;
import dev.backstage.operator.main.OperatorSettings;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.Condition;
import dev.backstage.operator.model.Conditions;
import dev.backstage.operator.testing.PodKubelet;
import dev.backstage.operator.testing.RealApiServer;
import dev.backstage.testsupport.ControlPlane;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The pool's Ready and Scaling conditions on the real API server, with the real Deployment and ReplicaSet
 * controllers deciding the replica counts. No kubelet runs here: {@link PodKubelet} marks pods Ready as a kubelet
 * would once their containers pass the readiness probe, so the test decides when new replicas become ready.
 */
@Tag("cluster")
class PoolConditionsOnApiServerTest {
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static RealApiServer api;
    private static KubernetesClient client;
    private static String ns;
    private static BackstageOperator operator;

    @BeforeAll
    static void start() {
        api = RealApiServer.shared();
        client = api.client();
        ns = api.namespace("conditions");
        OperatorSettings settings = new OperatorSettings(
                Set.of(ns), false, LeaseSettings.defaults(null), "conditions-test-operator", 0, false);
        operator = BackstageOperator.create(
                client, settings, Metrics.NOOP, Clock.systemUTC(), Optional.empty(), overrides -> {});
        operator.start();
    }

    @AfterAll
    static void stop() {
        operator.stop();
        api.deleteNamespace(ns);
    }

    @Test
    void givenAReadyPool_whenScaledUp_thenItStaysReadyAndSaysScalingUntilTheNewReplicasAreReady() {
        createReadyTopology(client, redisTopology(ns, "orders", "orders"));
        BackstageWorkerPool pool = pool(ns, "workers", "orders", "orders");
        pool.getSpec().setReplicas(1);
        client.resource(pool).create();
        PodKubelet kubelet = new PodKubelet(client, ns);
        await().atMost(WAIT).until(() -> {
            kubelet.markAllReady();
            return condition("workers", PoolScaling.TYPE)
                            .filter(c -> PoolScaling.STABLE.equals(c.getReason()))
                            .isPresent()
                    && condition("workers", Conditions.READY)
                            .map(c -> Conditions.TRUE.equals(c.getStatus()))
                            .orElse(false);
        });

        List<String> readySeen = new CopyOnWriteArrayList<>();
        List<String> scalingSeen = new CopyOnWriteArrayList<>();
        try (Watch watch = client.resources(BackstageWorkerPool.class)
                .inNamespace(ns)
                .withName("workers")
                .watch(new Watcher<>() {
                    @Override
                    public void eventReceived(Action action, BackstageWorkerPool seen) {
                        if (seen.getStatus() != null) {
                            Conditions.find(seen.getStatus().getConditions(), Conditions.READY)
                                    .ifPresent(c ->
                                            readySeen.add(c.getStatus() + " " + c.getReason() + ": " + c.getMessage()));
                            Conditions.find(seen.getStatus().getConditions(), PoolScaling.TYPE)
                                    .ifPresent(c -> scalingSeen.add(c.getStatus() + " " + c.getReason()));
                        }
                    }

                    @Override
                    public void onClose(WatcherException cause) {}
                })) {
            client.resources(BackstageWorkerPool.class)
                    .inNamespace(ns)
                    .withName("workers")
                    .edit(p -> {
                        p.getSpec().setReplicas(3);
                        return p;
                    });
            // The new pods exist but are not ready: the pool works on with its one ready replica and says it scales.
            Condition scaling = await().atMost(WAIT)
                    .until(
                            () -> condition("workers", PoolScaling.TYPE).orElse(null),
                            c -> c != null
                                    && PoolScaling.SCALING_UP.equals(c.getReason())
                                    && "1/3 replicas ready".equals(c.getMessage()));
            assertEquals(Conditions.TRUE, scaling.getStatus());

            await().atMost(WAIT).until(() -> {
                kubelet.markAllReady();
                BackstageWorkerPool now = get("workers");
                return now.getStatus() != null
                        && Integer.valueOf(3).equals(now.getStatus().getReadyReplicas())
                        && condition("workers", PoolScaling.TYPE)
                                .map(c -> PoolScaling.STABLE.equals(c.getReason()))
                                .orElse(false);
            });
            assertEquals(
                    Conditions.FALSE,
                    condition("workers", PoolScaling.TYPE).orElseThrow().getStatus());
        }
        assertTrue(
                readySeen.stream().allMatch(s -> s.startsWith(Conditions.TRUE + " ")),
                "Ready stayed True through the scale-up; seen: " + readySeen);
        assertTrue(scalingSeen.contains(Conditions.TRUE + " " + PoolScaling.SCALING_UP), "seen: " + scalingSeen);
    }

    @Test
    void givenAutoscalingOff_whenKubectlScales_thenTheReplicasAreSetThroughTheScaleSubresourceAndTheDeploymentFollows()
            throws Exception {
        createReadyTopology(client, redisTopology(ns, "emails", "emails"));
        BackstageWorkerPool pool = pool(ns, "mailers", "emails", "emails");
        pool.getSpec().setReplicas(1);
        client.resource(pool).create();
        await().atMost(WAIT)
                .until(() -> client.apps()
                                .deployments()
                                .inNamespace(ns)
                                .withName("mailers")
                                .get()
                        != null);

        ControlPlane.Result scaled = api.controlPlane().kubectl("scale", "bwp", "mailers", "--replicas=3", "-n", ns);
        assertEquals(0, scaled.exit(), scaled.err());
        assertEquals(3, get("mailers").getSpec().getReplicas());
        await().atMost(WAIT)
                .until(() -> client.apps()
                                .deployments()
                                .inNamespace(ns)
                                .withName("mailers")
                                .get()
                                .getSpec()
                                .getReplicas()
                        == 3);

        JsonNode scale = new ObjectMapper()
                .readTree(api.controlPlane()
                        .kubectl(
                                "get",
                                "--raw",
                                "/apis/backstage.dev/v1alpha1/namespaces/" + ns + "/backstageworkerpools/mailers/scale")
                        .orThrow()
                        .out());
        assertEquals(3, scale.at("/spec/replicas").asInt());
        await().atMost(WAIT)
                .until(() -> get("mailers").getStatus() != null
                        && get("mailers").getStatus().getSelector() != null);
        String selector = get("mailers").getStatus().getSelector();
        await().atMost(WAIT)
                .until(() -> api.controlPlane()
                                .kubectl("get", "pods", "-n", ns, "-l", selector, "-o", "name")
                                .orThrow()
                                .out()
                                .lines()
                                .count()
                        == 3);
    }

    private static BackstageWorkerPool get(String name) {
        return client.resources(BackstageWorkerPool.class)
                .inNamespace(ns)
                .withName(name)
                .get();
    }

    private static Optional<Condition> condition(String pool, String type) {
        BackstageWorkerPool current = get(pool);
        return current == null || current.getStatus() == null
                ? Optional.empty()
                : Conditions.find(current.getStatus().getConditions(), type);
    }
}
