package dev.backstage.operator.autoscaler;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.model.AutoscalingSpec;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.operator.model.Condition;
import dev.backstage.operator.model.Conditions;
import dev.backstage.operator.model.QueueBacklogStatus;
import dev.backstage.operator.model.QueueDeadLetterStatus;
import dev.backstage.operator.testing.BackstageFixtures;
import dev.backstage.operator.testing.OperatorTestHarness;
import dev.backstage.operator.testing.TcpProxy;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The backlog monitors end to end on the mock API server, with the broker side on the real local Redis: jobs
 * enqueued, read and acknowledged for real, and the pool's status and Deployment followed.
 */
@Tag("broker")
class BacklogAutoscalingTest {
    private static final Duration WAIT = Duration.ofSeconds(40);
    private static final String POLL = "1s";
    private static final Duration POLL_INTERVAL = Duration.ofSeconds(1);
    private static final String WINDOW = "3s";
    private static final Duration SCALE_DOWN_WINDOW = Duration.ofSeconds(3);

    private static OperatorTestHarness harness;
    private static KubernetesClient client;
    private RedisPoolBroker broker;
    private String namespace;

    @BeforeAll
    static void start() {
        harness = OperatorTestHarness.start();
        client = harness.client();
    }

    @AfterAll
    static void stop() {
        harness.close();
    }

    @AfterEach
    void cleanUp() {
        // Deleting the test's pools stops their monitors, so they do not keep polling the keys removed below.
        if (namespace != null) {
            client.resources(BackstageWorkerPool.class).inNamespace(namespace).delete();
        }
        if (broker != null) {
            broker.close();
        }
    }

    private String newNamespace(String base) {
        namespace = harness.newNamespace(base);
        return namespace;
    }

    @Test
    void givenJobsOnRedis_thenScaledUpAtTheFirstPollAndDownAfterTheWindow_andToZeroOnlyWhenNothingIsInFlight() {
        String ns = newNamespace("scale");
        broker = new RedisPoolBroker().declare("orders");
        broker.createTopology(client, ns, "jobs", RedisPoolBroker.REDIS_URL, "orders");
        client.resource(autoscaledPool(ns, "workers", "jobs", 0, 5, 2)).create();

        System.out.println("waiting for the first measurement of an empty queue");
        awaitStatus(
                ns,
                "workers",
                s -> backlogAvailable(s)
                        && s.getBacklog() != null
                        && s.getBacklog().getOutstanding() == 0);
        await().atMost(WAIT).untilAsserted(() -> assertEquals(0, deploymentReplicas(ns, "workers")));

        Instant enqueued = Instant.now();
        broker.enqueue("orders", 6);
        System.out.println("6 jobs enqueued; waiting for 3 replicas (2 jobs per replica)");
        await().atMost(WAIT).untilAsserted(() -> assertEquals(3, deploymentReplicas(ns, "workers")));
        BackstageWorkerPoolStatus up = pool(ns, "workers").getStatus();
        assertEquals(3, up.getDesiredReplicas());
        assertTrue(
                up.getLastScaleReason().contains("6 outstanding (6 undelivered + 0 in flight)"),
                up.getLastScaleReason());
        assertTrue(up.getLastScaleReason().contains("activating from zero to 3"), up.getLastScaleReason());
        // Decided at the first poll after the jobs arrived: lastScaleTime has whole seconds, hence the extra second,
        // and a second more for a busy machine's scheduling.
        Instant scaledAt = Instant.parse(up.getLastScaleTime());
        assertFalse(
                scaledAt.isAfter(enqueued.truncatedTo(ChronoUnit.SECONDS)
                        .plus(POLL_INTERVAL)
                        .plusSeconds(2)),
                "scaled at " + scaledAt + ", jobs enqueued at " + enqueued + ", poll interval " + POLL);
        assertEquals(6L, up.getBacklog().getUndelivered());
        System.out.println("status after the scale-up: " + Serialization.asJson(up));
        QueueBacklogStatus orders = up.getBacklog().getQueues().get(0);
        assertEquals("orders", orders.getQueue());
        assertNotNull(orders.getOldestEnqueuedAt(), "Redis can tell the oldest job's enqueue time");
        // Events are written in the background: wait for it.
        await().atMost(WAIT)
                .untilAsserted(() -> assertTrue(
                        eventMessages(ns, "Autoscaled").stream()
                                .anyMatch(m -> m.startsWith("desired replicas 0 -> 3: ")),
                        () -> "events: " + eventMessages(ns, "Autoscaled")));

        assertEquals(6, broker.readWithoutAck("orders", 6));
        awaitStatus(
                ns,
                "workers",
                s -> s.getBacklog().getInFlight() == 6 && s.getBacklog().getUndelivered() == 0);
        assertEquals(3, pool(ns, "workers").getStatus().getDesiredReplicas(), "6 in flight still need 3 replicas");

        broker.ack("orders", 5);
        System.out.println(
                "5 of 6 acked, 1 in flight; waiting for the scale-down to 1 after the " + WINDOW + " window");
        await().atMost(WAIT).untilAsserted(() -> assertEquals(1, deploymentReplicas(ns, "workers")));
        String down = pool(ns, "workers").getStatus().getLastScaleReason();
        assertTrue(down.contains("scaling down from 3 to 1"), down);
        assertTrue(down.contains("1 outstanding (0 undelivered + 1 in flight)"), down);

        System.out.println("1 job in flight: the pool must stay at 1 for two windows");
        await().during(SCALE_DOWN_WINDOW.multipliedBy(2))
                .atMost(WAIT)
                .until(() -> Integer.valueOf(1)
                                .equals(pool(ns, "workers").getStatus().getDesiredReplicas())
                        && deploymentReplicas(ns, "workers") == 1);

        broker.ack("orders", 1);
        System.out.println("last job acked; waiting for zero");
        await().atMost(WAIT).untilAsserted(() -> assertEquals(0, deploymentReplicas(ns, "workers")));
        String zero = pool(ns, "workers").getStatus().getLastScaleReason();
        assertTrue(zero.contains("scaling down from 1 to 0: nothing outstanding or arriving for 3 s"), zero);
    }

    @Test
    void givenTheBrokerFailsMidRun_thenBacklogAvailableFalseWithTheReason_theLastFiguresKept_andReplicasHeld()
            throws Exception {
        String ns = newNamespace("outage");
        broker = new RedisPoolBroker().declare("orders");
        URI redis = URI.create(RedisPoolBroker.REDIS_URL);
        try (TcpProxy proxy = new TcpProxy(redis.getHost(), redis.getPort()).start()) {
            broker.createTopology(client, ns, "jobs", "redis://127.0.0.1:" + proxy.port(), "orders");
            client.resource(autoscaledPool(ns, "workers", "jobs", 1, 5, 2)).create();
            broker.enqueue("orders", 6);
            await().atMost(WAIT).untilAsserted(() -> assertEquals(3, deploymentReplicas(ns, "workers")));
            BackstageWorkerPoolStatus before = awaitStatus(
                    ns, "workers", s -> backlogAvailable(s) && s.getBacklog().getUndelivered() == 6);

            proxy.stop();
            System.out.println("broker cut off; waiting for BacklogAvailable=False");
            BackstageWorkerPoolStatus down = awaitStatus(
                    ns,
                    "workers",
                    s -> backlogCondition(s)
                            .filter(c -> Conditions.FALSE.equals(c.getStatus()))
                            .isPresent());
            Condition condition = backlogCondition(down).orElseThrow();
            assertEquals("BrokerUnreachable", condition.getReason(), condition.getMessage());
            assertTrue(
                    condition
                            .getMessage()
                            .contains("keep the last good figures, measured at " + down.getBacklogMeasuredAt()),
                    condition.getMessage());
            assertEquals(6L, down.getBacklog().getUndelivered(), "the last good figures, not 0");

            // The work drains while the operator cannot see it: a reading of 0 would now scale the pool down.
            assertEquals(6, broker.readWithoutAck("orders", 6));
            broker.ack("orders", 6);
            System.out.println("queue drained behind the operator's back; replicas must hold at 3");
            await().during(SCALE_DOWN_WINDOW.plus(POLL_INTERVAL.multipliedBy(3)))
                    .atMost(WAIT)
                    .until(() -> {
                        BackstageWorkerPoolStatus s = pool(ns, "workers").getStatus();
                        return Integer.valueOf(3).equals(s.getDesiredReplicas())
                                && deploymentReplicas(ns, "workers") == 3
                                && s.getBacklog().getUndelivered() == 6
                                && down.getBacklogMeasuredAt().equals(s.getBacklogMeasuredAt())
                                && backlogCondition(s)
                                        .map(c -> Conditions.FALSE.equals(c.getStatus()))
                                        .orElse(false);
                    });
            assertTrue(
                    Instant.parse(down.getBacklogMeasuredAt()).compareTo(Instant.parse(before.getBacklogMeasuredAt()))
                            >= 0);
            await().atMost(WAIT)
                    .untilAsserted(() -> assertTrue(
                            eventMessages(ns, "BacklogUnavailable").stream()
                                    .anyMatch(m -> m.startsWith("BrokerUnreachable: ")),
                            () -> "events: " + eventMessages(ns, "BacklogUnavailable")));

            proxy.start();
            System.out.println("broker back; waiting for the figures and the scale-down to minReplicas 1");
            awaitStatus(
                    ns, "workers", s -> backlogAvailable(s) && s.getBacklog().getOutstanding() == 0);
            await().atMost(WAIT).untilAsserted(() -> assertEquals(1, deploymentReplicas(ns, "workers")));
            await("recovery is announced")
                    .atMost(WAIT)
                    .until(() -> !eventMessages(ns, "BacklogAvailable").isEmpty());
        }
    }

    @Test
    void givenAutoscalingOff_thenBacklogAndDeadLettersAreStillReported_andStatusIsNotRewrittenWhileNothingChanges() {
        String ns = newNamespace("figures");
        broker = new RedisPoolBroker().declare("orders", "emails");
        broker.createTopology(client, ns, "jobs", RedisPoolBroker.REDIS_URL, "orders", "emails");
        BackstageWorkerPool fixed = BackstageFixtures.pool(ns, "workers", "jobs", "orders", "emails");
        AutoscalingSpec polling = new AutoscalingSpec();
        polling.setPollInterval(POLL); // enabled stays false: the poll interval applies to the figures alone
        fixed.getSpec().setAutoscaling(polling);
        client.resource(fixed).create();
        broker.enqueue("orders", 3);
        broker.enqueue("emails", 1);
        broker.readWithoutAck("orders", 1);
        broker.deadLetter("orders", 2);

        BackstageWorkerPoolStatus status = awaitStatus(
                ns,
                "workers",
                s -> backlogAvailable(s)
                        && s.getBacklog().getOutstanding() == 4
                        && Integer.valueOf(2).equals(s.getReadyReplicas()));
        assertEquals(3L, status.getBacklog().getUndelivered());
        assertEquals(1L, status.getBacklog().getInFlight());
        Map<String, Long> outstanding = status.getBacklog().getQueues().stream()
                .collect(Collectors.toMap(QueueBacklogStatus::getQueue, QueueBacklogStatus::getOutstanding));
        assertEquals(Map.of("orders", 3L, "emails", 1L), outstanding);
        assertEquals(2L, status.getDeadLetters().getTotal());
        assertEquals(
                Map.of("orders", 2L, "emails", 0L),
                status.getDeadLetters().getQueues().stream()
                        .collect(Collectors.toMap(QueueDeadLetterStatus::getQueue, QueueDeadLetterStatus::getCount)));
        assertNotNull(status.getBacklogMeasuredAt());
        assertEquals(2, status.getDesiredReplicas(), "spec.replicas while autoscaling is off");
        assertNull(status.getLastScaleTime());
        assertTrue(Conditions.find(status.getConditions(), AutoscalerStatus.SCALING_LIMITED)
                .isEmpty());
        assertEquals(2, deploymentReplicas(ns, "workers"));

        String version = pool(ns, "workers").getMetadata().getResourceVersion();
        System.out.println("figures unchanged: the status must not be rewritten for 4 polls");
        await().during(POLL_INTERVAL.multipliedBy(4))
                .atMost(WAIT)
                .until(() -> version.equals(pool(ns, "workers").getMetadata().getResourceVersion()));

        broker.enqueue("emails", 2);
        awaitStatus(ns, "workers", s -> s.getBacklog().getOutstanding() == 6);
        assertEquals(2, deploymentReplicas(ns, "workers"), "figures only: no scaling while autoscaling is off");
    }

    @Test
    void givenMoreBacklogThanMaxReplicasAllow_thenCappedAtMaxAndScalingLimitedSaysSo() {
        String ns = newNamespace("capped");
        broker = new RedisPoolBroker().declare("orders");
        broker.createTopology(client, ns, "jobs", RedisPoolBroker.REDIS_URL, "orders");
        // The backlog is there before the pool's first sample: enqueued after it, on a loaded machine the jobs
        // can fall into two samples and read as arrivals, which raise the need beyond the backlog's 5.
        broker.enqueue("orders", 10);
        client.resource(autoscaledPool(ns, "workers", "jobs", 1, 2, 2)).create();

        BackstageWorkerPoolStatus status = awaitStatus(
                ns,
                "workers",
                s -> Integer.valueOf(2).equals(s.getDesiredReplicas())
                        && Conditions.isTrue(s.getConditions(), AutoscalerStatus.SCALING_LIMITED));
        Condition limited = Conditions.find(status.getConditions(), AutoscalerStatus.SCALING_LIMITED)
                .orElseThrow();
        assertEquals("MaxReplicas", limited.getReason());
        assertEquals("the backlog asks for more than maxReplicas (2)", limited.getMessage());
        assertTrue(
                status.getLastScaleReason().contains("capped at maxReplicas 2; the need asks for 5"),
                status.getLastScaleReason());
        await().atMost(WAIT).untilAsserted(() -> assertEquals(2, deploymentReplicas(ns, "workers")));
    }

    @Test
    void givenAPoolIsDeleted_thenItsMonitorStops_andItsTopologysConnectionCloses() {
        String ns = newNamespace("gone");
        broker = new RedisPoolBroker().declare("orders");
        broker.createTopology(client, ns, "jobs", RedisPoolBroker.REDIS_URL, "orders");
        client.resource(autoscaledPool(ns, "workers", "jobs", 1, 2, 2)).create();
        awaitStatus(ns, "workers", BacklogAutoscalingTest::backlogAvailable);
        BacklogMonitors monitors = harness.operator().backlogMonitors();
        int pools = monitors.size();
        int connections = monitors.openConnections();

        client.resources(BackstageWorkerPool.class)
                .inNamespace(ns)
                .withName("workers")
                .delete();
        await().atMost(WAIT).untilAsserted(() -> {
            assertEquals(pools - 1, monitors.size());
            assertEquals(connections - 1, monitors.openConnections());
        });
    }

    @Test
    void givenTheTopologyIsDeleted_thenBacklogAvailableFalseTopologyNotFound_andItsConnectionCloses() {
        String ns = newNamespace("notopo");
        broker = new RedisPoolBroker().declare("orders");
        broker.createTopology(client, ns, "jobs", RedisPoolBroker.REDIS_URL, "orders");
        client.resource(autoscaledPool(ns, "workers", "jobs", 1, 2, 2)).create();
        broker.enqueue("orders", 2);
        awaitStatus(ns, "workers", s -> backlogAvailable(s) && s.getBacklog().getOutstanding() == 2);
        BacklogMonitors monitors = harness.operator().backlogMonitors();
        int connections = monitors.openConnections();

        client.resources(BackstageTopology.class)
                .inNamespace(ns)
                .withName("jobs")
                .delete();
        BackstageWorkerPoolStatus status = awaitStatus(
                ns,
                "workers",
                s -> backlogCondition(s)
                        .map(c -> "TopologyNotFound".equals(c.getReason()))
                        .orElse(false));
        assertEquals(Conditions.FALSE, backlogCondition(status).orElseThrow().getStatus());
        assertEquals(2L, status.getBacklog().getOutstanding(), "the last good figures stay");
        await().atMost(WAIT).untilAsserted(() -> assertEquals(connections - 1, monitors.openConnections()));
    }

    @Test
    void givenAPool_thenItsBacklogDesiredReplicasAndDeadLettersArePrometheusGaugesOfTheOperator() {
        var registry = new io.micrometer.prometheusmetrics.PrometheusMeterRegistry(
                io.micrometer.prometheusmetrics.PrometheusConfig.DEFAULT);
        harness.operator().backlogMonitors().exportTo(registry);
        String ns = newNamespace("metrics");
        broker = new RedisPoolBroker().declare("orders");
        broker.createTopology(client, ns, "jobs", RedisPoolBroker.REDIS_URL, "orders");
        client.resource(autoscaledPool(ns, "workers", "jobs", 1, 5, 2)).create();
        broker.enqueue("orders", 6);
        broker.deadLetter("orders", 2);

        String tags = "{namespace=\"" + ns + "\",pool=\"workers\"}";
        await().atMost(WAIT).untilAsserted(() -> {
            String scrape = registry.scrape();
            assertTrue(
                    scrape.contains(PoolMetrics.BACKLOG + tags + " 6.0")
                            && scrape.contains(PoolMetrics.DESIRED_REPLICAS + tags + " 3.0")
                            && scrape.contains(PoolMetrics.DEAD_LETTERS + tags + " 2.0"),
                    () -> scrape.lines()
                            .filter(l -> l.startsWith("backstage_pool_"))
                            .toList()
                            .toString());
        });
        client.resources(BackstageWorkerPool.class)
                .inNamespace(ns)
                .withName("workers")
                .delete();
        await().atMost(WAIT).until(() -> !registry.scrape().contains(tags));
    }

    @Test
    void givenIdleReadyWorkersBesideABacklogThatDoesNotMove_thenBacklogStalledSaysSoUntilWorkIsInFlight() {
        String ns = newNamespace("stalled");
        broker = new RedisPoolBroker().declare("orders");
        broker.createTopology(client, ns, "jobs", RedisPoolBroker.REDIS_URL, "orders");
        client.resource(autoscaledPool(ns, "workers", "jobs", 2, 2, 2)).create();
        broker.enqueue("orders", 5); // and no worker reads them

        BackstageWorkerPoolStatus stalled =
                awaitStatus(ns, "workers", s -> Conditions.isTrue(s.getConditions(), StallDetector.TYPE));
        Condition condition =
                Conditions.find(stalled.getConditions(), StallDetector.TYPE).orElseThrow();
        assertEquals(StallDetector.NO_PROGRESS, condition.getReason());
        assertTrue(
                condition.getMessage().startsWith("5 jobs wait undelivered and none is in flight since "),
                condition.getMessage());

        assertEquals(5, broker.readWithoutAck("orders", 5));
        BackstageWorkerPoolStatus moving = awaitStatus(
                ns,
                "workers",
                s -> Conditions.find(s.getConditions(), StallDetector.TYPE)
                        .map(c -> Conditions.FALSE.equals(c.getStatus()))
                        .orElse(false));
        assertEquals(
                StallDetector.PROGRESSING,
                Conditions.find(moving.getConditions(), StallDetector.TYPE)
                        .orElseThrow()
                        .getReason());
    }

    @Test
    void givenThePauseAnnotation_thenTheBacklogIsMeasuredButTheReplicasHoldUntilItIsRemoved() {
        String ns = newNamespace("paused");
        broker = new RedisPoolBroker().declare("orders");
        broker.createTopology(client, ns, "jobs", RedisPoolBroker.REDIS_URL, "orders");
        BackstageWorkerPool paused = autoscaledPool(ns, "workers", "jobs", 1, 5, 2);
        paused.getMetadata().setAnnotations(Map.of(ScalingControls.PAUSED_ANNOTATION, "true"));
        client.resource(paused).create();
        awaitStatus(ns, "workers", s -> backlogAvailable(s) && s.getBacklog().getOutstanding() == 0);
        broker.enqueue("orders", 6);

        awaitStatus(ns, "workers", s -> s.getBacklog().getOutstanding() == 6);
        System.out.println("paused: 6 jobs ask for 3 replicas; the pool must hold 1 for 4 polls");
        await().during(POLL_INTERVAL.multipliedBy(4))
                .atMost(WAIT)
                .until(() -> deploymentReplicas(ns, "workers") == 1
                        && !Integer.valueOf(3)
                                .equals(pool(ns, "workers").getStatus().getDesiredReplicas()));

        client.resources(BackstageWorkerPool.class)
                .inNamespace(ns)
                .withName("workers")
                .edit(p -> {
                    p.getMetadata().getAnnotations().remove(ScalingControls.PAUSED_ANNOTATION);
                    return p;
                });
        await().atMost(WAIT).untilAsserted(() -> assertEquals(3, deploymentReplicas(ns, "workers")));
    }

    @Test
    void givenAFallbackCount_thenThePoolRunsItWhileTheBacklogCannotBeRead() {
        String ns = newNamespace("fallback");
        broker = new RedisPoolBroker().declare("orders");
        broker.createTopology(client, ns, "jobs", RedisPoolBroker.REDIS_URL, "orders");
        BackstageWorkerPool pool = autoscaledPool(ns, "workers", "jobs", 1, 5, 2);
        pool.getSpec().getAutoscaling().setFallbackReplicas(4);
        client.resource(pool).create();
        broker.enqueue("orders", 2);
        awaitStatus(ns, "workers", s -> backlogAvailable(s) && s.getBacklog().getOutstanding() == 2);
        await().atMost(WAIT).untilAsserted(() -> assertEquals(1, deploymentReplicas(ns, "workers")));

        // The backlog can no longer be read: the topology now names a connection Secret that does not exist.
        client.resources(BackstageTopology.class)
                .inNamespace(ns)
                .withName("jobs")
                .edit(t -> {
                    t.getSpec().getConnection().setSecretName("jobs-nowhere");
                    return t;
                });
        BackstageWorkerPoolStatus status =
                awaitStatus(ns, "workers", s -> Integer.valueOf(4).equals(s.getDesiredReplicas()));
        assertEquals(ScalingControls.FALLBACK_REASON, status.getLastScaleReason());
        assertTrue(
                backlogCondition(status)
                        .orElseThrow()
                        .getMessage()
                        .contains("replicas go to spec.autoscaling.fallbackReplicas (4)"),
                backlogCondition(status).toString());
        await().atMost(WAIT).untilAsserted(() -> assertEquals(4, deploymentReplicas(ns, "workers")));
    }

    private static BackstageWorkerPool autoscaledPool(
            String ns, String name, String topology, int min, int max, int perReplica) {
        BackstageWorkerPool pool = BackstageFixtures.pool(ns, name, topology, "orders");
        AutoscalingSpec autoscaling = new AutoscalingSpec();
        autoscaling.setEnabled(true);
        autoscaling.setMinReplicas(min);
        autoscaling.setMaxReplicas(max);
        autoscaling.setTargetBacklogPerReplica(perReplica);
        autoscaling.setPollInterval(POLL);
        autoscaling.setScaleDownWindow(WINDOW);
        pool.getSpec().setAutoscaling(autoscaling);
        return pool;
    }

    private static BackstageWorkerPool pool(String ns, String name) {
        return client.resources(BackstageWorkerPool.class)
                .inNamespace(ns)
                .withName(name)
                .get();
    }

    /** Waits for the pool's status to meet {@code condition}; a timeout says what the status and the monitor held. */
    private static BackstageWorkerPoolStatus awaitStatus(
            String ns, String name, Predicate<BackstageWorkerPoolStatus> condition) {
        AtomicReference<BackstageWorkerPoolStatus> seen = new AtomicReference<>();
        await().atMost(WAIT).untilAsserted(() -> {
            BackstageWorkerPoolStatus status = pool(ns, name).getStatus();
            seen.set(status);
            assertTrue(
                    status != null && condition.test(status),
                    () -> "pool " + ns + "/" + name + " status: "
                            + Serialization.asJson(status) + "; monitors: "
                            + harness.operator().backlogMonitors().size()
                            + ", probe connections: "
                            + harness.operator().backlogMonitors().openConnections());
        });
        return seen.get();
    }

    private static Optional<Condition> backlogCondition(BackstageWorkerPoolStatus status) {
        return Conditions.find(status.getConditions(), AutoscalerStatus.BACKLOG_AVAILABLE);
    }

    private static boolean backlogAvailable(BackstageWorkerPoolStatus status) {
        return Conditions.isTrue(status.getConditions(), AutoscalerStatus.BACKLOG_AVAILABLE);
    }

    private static int deploymentReplicas(String ns, String name) {
        Deployment deployment =
                client.apps().deployments().inNamespace(ns).withName(name).get();
        return deployment == null || deployment.getSpec().getReplicas() == null
                ? -1
                : deployment.getSpec().getReplicas();
    }

    private static List<String> eventMessages(String ns, String reason) {
        return client.v1().events().inNamespace(ns).list().getItems().stream()
                .filter(e -> reason.equals(e.getReason()))
                .map(Event::getMessage)
                .toList();
    }
}
