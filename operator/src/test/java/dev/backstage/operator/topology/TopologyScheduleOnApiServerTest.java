package dev.backstage.operator.topology;

import static dev.backstage.operator.topology.TopologyTestSupport.FAST;
import static dev.backstage.operator.topology.TopologyTestSupport.WAIT;
import static dev.backstage.operator.topology.TopologyTestSupport.get;
import static dev.backstage.operator.topology.TopologyTestSupport.secret;
import static dev.backstage.operator.topology.TopologyTestSupport.topology;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.main.BackstageOperator;
import dev.backstage.operator.main.LeaseSettings;
import dev.backstage.operator.main.OperatorSettings;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.ProviderType;
import dev.backstage.operator.model.ScheduleSpec;
import dev.backstage.operator.model.ScheduleStatus;
import dev.backstage.operator.testing.RealApiServer;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The operator's schedule firing and topology reconciler together on the real API server, as in production: both
 * write the topology's status, each under its own field manager (server-side apply for the reconciler, JSON patches
 * of its own fields for the firing), so neither erases the other's fields. The fabric8 mock has no server-side apply,
 * which is why this runs here.
 */
@Tag("cluster")
class TopologyScheduleOnApiServerTest {
    private static final String REDIS = "redis://127.0.0.1:6379";
    private static RealApiServer api;
    private static KubernetesClient client;
    private static String ns;
    private static BackstageOperator operator;
    private static RedisClient redisClient;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisCommands<String, String> redis;

    @BeforeAll
    static void start() {
        api = RealApiServer.shared();
        client = api.client();
        ns = api.namespace("cron");
        OperatorSettings settings = new OperatorSettings(
                Set.of(ns), false, LeaseSettings.defaults(null), "schedule-test-operator", 0, false);
        operator = BackstageOperator.create(
                client, settings, Metrics.NOOP, Clock.systemUTC(), Optional.of(FAST), overrides -> {});
        operator.start();
        redisClient = RedisClient.create(REDIS);
        connection = redisClient.connect();
        redis = connection.sync();
    }

    @AfterAll
    static void stop() {
        operator.stop();
        api.deleteNamespace(ns);
        connection.close();
        redisClient.shutdown();
    }

    @Test
    void givenASchedule_whenTheTopologyIsReconciled_thenTheOperatorFiresEachTickOnceAndReportsItInStatus() {
        String prefix = UniqueNames.prefix("bs-cron");
        secret(client, ns, "redis-url", REDIS);
        BackstageTopology topology = topology(ns, "orders", ProviderType.REDIS, prefix, "redis-url", "orders");
        ScheduleSpec everySecond = new ScheduleSpec();
        everySecond.setName("heartbeat");
        everySecond.setSchedule("* * * * * *");
        everySecond.setTask("heartbeat");
        everySecond.setQueue("orders");
        topology.getSpec().setSchedules(List.of(everySecond));
        client.resource(topology).create();

        try {
            await("three ticks fired and recorded").atMost(WAIT).untilAsserted(() -> {
                BackstageTopology now = get(client, ns, "orders");
                long fired = redis.xlen(prefix + ":orders");
                assertTrue(
                        fired >= 3 && now.getStatus() != null && now.getStatus().getSchedules() != null,
                        () -> fired + " jobs fired; topology status: " + Serialization.asJson(now.getStatus()));
                ScheduleStatus status = now.getStatus().getSchedules().get(0);
                assertEquals("heartbeat", status.getName());
                assertTrue(status.getLastFiredTick() != null && status.getNextTick() != null, status.getNextTick());
            });
            // Every job was claimed first: one claim key per enqueued job, and no tick twice.
            // Spec edits as JSON patches without a resourceVersion: the firing writes the status every second, so
            // a read-modify-update of the whole object would meet a conflict.
            patchSpec("[{\"op\":\"add\",\"path\":\"/spec/schedules/0/suspend\",\"value\":true}]");
            await("suspended: no next tick")
                    .atMost(WAIT)
                    .until(() -> get(client, ns, "orders")
                                    .getStatus()
                                    .getSchedules()
                                    .get(0)
                                    .getNextTick()
                            == null);
            long jobs = redis.xlen(prefix + ":orders");
            long claims = redis.keys(prefix + ":dedupe:cron:heartbeat:*").size();
            List<String> payloads = redis.xrange(prefix + ":orders", Range.create("-", "+")).stream()
                    .map(m -> m.getBody().get("payload"))
                    .distinct()
                    .toList();
            System.out.println("operator-fired every-second schedule: jobs " + jobs + ", claimed ticks " + claims);
            assertEquals(claims, jobs);
            assertEquals(List.of("{\"taskName\":\"heartbeat\",\"args\":[]}"), payloads);
            assertEquals(
                    "1",
                    get(client, ns, "orders").getStatus().getScheduleSummary().substring(0, 1));
            assertTrue(
                    get(client, ns, "orders").getStatus().getConditions().stream()
                            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus())),
                    "the reconciler's Ready condition stands beside the firing's fields");

            patchSpec("[{\"op\":\"remove\",\"path\":\"/spec/schedules\"}]");
            await("schedule status cleared")
                    .atMost(WAIT)
                    .until(() -> get(client, ns, "orders").getStatus().getSchedules() == null);
        } finally {
            client.resources(BackstageTopology.class)
                    .inNamespace(ns)
                    .withName("orders")
                    .delete();
            List<String> keys = redis.keys(prefix + ":*");
            if (!keys.isEmpty()) {
                redis.del(keys.toArray(String[]::new));
            }
        }
    }

    private static void patchSpec(String jsonPatch) {
        client.resources(BackstageTopology.class)
                .inNamespace(ns)
                .withName("orders")
                .patch(PatchContext.of(PatchType.JSON), jsonPatch);
    }
}
