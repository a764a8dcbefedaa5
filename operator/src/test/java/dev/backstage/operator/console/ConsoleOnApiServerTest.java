package dev.backstage.operator.console;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.events.EventRecorder;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.operator.model.ScheduleSpec;
import dev.backstage.operator.testing.BackstageFixtures;
import dev.backstage.operator.testing.RealApiServer;
import dev.backstage.runtime.redis.RedisKeys;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The console against the real API server (TokenReview, SubjectAccessReview, informers, Events, a JSON patch) and the
 * real Redis (dead letters), over plain HTTP: a reader may look but not act, a writer may act, a stranger's token is
 * refused, and every action is an Event naming its user. Shares one namespace, one console and one Redis prefix.
 */
@Tag("cluster")
@Tag("broker")
class ConsoleOnApiServerTest {
    private static final String REDIS = "redis://127.0.0.1:6379";
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static RealApiServer api;
    private static KubernetesClient client;
    private static String ns;
    private static String prefix;
    private static EventRecorder events;
    private static Console console;
    private static RedisClient redisClient;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisCommands<String, String> redis;

    @BeforeAll
    static void start() throws Exception {
        api = RealApiServer.shared();
        client = api.client();
        ns = api.namespace("console");
        redisClient = RedisClient.create(REDIS);
        connection = redisClient.connect();
        redis = connection.sync();

        client.resource(new SecretBuilder().withNewMetadata().withNamespace(ns).withName("orders-redis").endMetadata()
                .withStringData(Map.of("url", REDIS)).build()).create();
        BackstageTopology topology = BackstageFixtures.redisTopology(ns, "orders", "default");
        prefix = topology.getSpec().getKeyPrefix() + "-" + ns;
        topology.getSpec().setKeyPrefix(prefix);
        ScheduleSpec nightly = new ScheduleSpec();
        nightly.setName("nightly");
        nightly.setSchedule("0 3 * * *");
        nightly.setTask("report");
        topology.getSpec().setSchedules(List.of(nightly));
        client.resource(topology).create();
        client.resource(BackstageFixtures.pool(ns, "workers", "orders", "default")).create();
        BackstageWorkerPoolStatus status = new BackstageWorkerPoolStatus();
        status.setReadyReplicas(1);
        status.setDesiredReplicas(3);
        status.setLastScaleTime("2026-12-03T01:00:00Z");
        status.setLastScaleReason("backlog 120 needs 3 workers");
        client.resources(BackstageWorkerPool.class).inNamespace(ns).withName("workers").editStatus(p -> {
            p.setStatus(status);
            return p;
        });

        role("reader", "get", "list", "watch");
        role("writer", "get", "list", "watch", "update");
        events = new EventRecorder(client, "backstage-operator", "console-test", Clock.systemUTC());
        console = new Console(client, new ConsoleSettings(true, 0, Duration.ofSeconds(1), 60, Duration.ofHours(1)),
                Set.of(ns), events, Clock.systemUTC());
        console.start();
    }

    @AfterAll
    static void stop() {
        if (console != null) {
            console.close();
        }
        if (events != null) {
            events.close();
        }
        List<String> keys = redis.keys(prefix + ":*");
        if (!keys.isEmpty()) {
            redis.del(keys.toArray(String[]::new));
        }
        connection.close();
        redisClient.shutdown();
        api.deleteNamespace(ns);
    }

    @Test
    void givenATokenTheApiServerDoesNotKnow_whenSigningIn_thenTheConsoleRefusesAndKeepsNoSession() throws Exception {
        ConsoleClient stranger = new ConsoleClient(console.port());
        HttpResponse<String> response = stranger.signIn("not-a-real-token");
        assertEquals(401, response.statusCode());
        assertTrue(response.body().contains("does not accept this token"), response.body());
        assertFalse(response.body().contains("not-a-real-token"), "the token is never echoed");
        assertEquals(303, stranger.get("/").statusCode(), "unsigned requests go to /signin");
        assertEquals(401, stranger.post("/pools/" + ns + "/workers/dead-letters/redrive-all", "queue=default")
                .statusCode());
    }

    @Test
    void givenAReader_whenTheyOpenThePagesAndTryToAct_thenTheySeeEverythingAndChangeNothing() throws Exception {
        ConsoleClient reader = signedIn("reader");
        await("the pool is in the overview").atMost(WAIT).untilAsserted(() -> {
            String overview = reader.get("/").body();
            assertTrue(overview.contains("data-pool=\"" + ns + "/workers\""), overview);
            // As the API server holds it now (on the shared control plane another engineer's operator may be
            // reconciling this pool too, and write replicas of its own).
            BackstageWorkerPoolStatus now = client.resources(BackstageWorkerPool.class).inNamespace(ns)
                    .withName("workers").get().getStatus();
            assertTrue(overview.contains(">" + now.getReadyReplicas() + " / " + now.getDesiredReplicas() + "<")
                    && overview.contains(now.getLastScaleReason()), overview);
        });
        String pool = reader.get("/pools/" + ns + "/workers").body();
        assertTrue(pool.contains("<svg class=\"plot\""), pool);
        String schedules = reader.get("/schedules?namespace=" + ns).body();
        assertTrue(schedules.contains("data-schedule=\"nightly\""), schedules);

        String id = deadLetter("{\"order\":\"<script>alert(1)</script>\"}");
        String page = reader.get("/pools/" + ns + "/workers/dead-letters?queue=default").body();
        assertTrue(page.contains("data-id=\"" + id + "\""), page);
        assertTrue(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), page);
        assertFalse(page.contains("<script>alert"), page);

        HttpResponse<String> refused = reader.act("/pools/" + ns + "/workers/dead-letters/redrive", "queue", "default",
                "id", id);
        assertEquals(403, refused.statusCode());
        assertTrue(refused.body().contains("may not update backstageworkerpools " + ns + "/workers"), refused.body());
        assertEquals(403, reader.act("/schedules/" + ns + "/orders/suspend", "schedule", "nightly").statusCode());
        assertEquals(1, redis.xlen(new RedisKeys(prefix).deadLetter("default")), "still dead-lettered");
        redis.del(new RedisKeys(prefix).deadLetter("default"));
    }

    @Test
    void givenAWriter_whenTheyRedriveDeleteAndSuspend_thenBrokerAndApiServerChangeAndEventsNameThem()
            throws Exception {
        ConsoleClient writer = signedIn("writer");
        RedisKeys keys = new RedisKeys(prefix);
        String first = deadLetter("{\"n\":1}");
        String second = deadLetter("{\"n\":2}");
        await("the pool is cached").atMost(WAIT).until(() ->
                writer.get("/pools/" + ns + "/workers/dead-letters?queue=default").statusCode() == 200);

        HttpResponse<String> noCsrf = writer.post("/pools/" + ns + "/workers/dead-letters/redrive",
                "queue=default&id=" + first);
        assertEquals(403, noCsrf.statusCode(), "a form without the session's CSRF token is refused");
        assertEquals(2, redis.xlen(keys.deadLetter("default")));

        assertEquals(303, writer.act("/pools/" + ns + "/workers/dead-letters/redrive", "queue", "default", "id", first)
                .statusCode());
        assertEquals(List.of(second), redis.xrange(keys.deadLetter("default"), Range.create("-", "+")).stream()
                .map(m -> m.getId()).toList());
        assertEquals("{\"n\":1}", redis.xrange(keys.stream("default"), Range.create("-", "+")).get(0).getBody()
                .get("payload"));
        assertTrue(writer.get("/pools/" + ns + "/workers/dead-letters?queue=default").body().contains("Redrove " + first));

        assertEquals(303, writer.act("/pools/" + ns + "/workers/dead-letters/delete", "queue", "default", "id", second)
                .statusCode());
        assertEquals(0, redis.xlen(keys.deadLetter("default")));

        writer.get("/schedules");
        assertEquals(303, writer.act("/schedules/" + ns + "/orders/suspend", "schedule", "nightly").statusCode());
        assertEquals(Boolean.TRUE, client.resources(BackstageTopology.class).inNamespace(ns).withName("orders").get()
                .getSpec().getSchedules().get(0).getSuspend());

        String user = "system:serviceaccount:" + ns + ":writer";
        events.flush(Duration.ofSeconds(10));
        await("Events name the user").atMost(WAIT).untilAsserted(() -> {
            List<String> messages = client.v1().events().inNamespace(ns).list().getItems().stream()
                    .map(e -> e.getReason() + ": " + e.getMessage()).toList();
            assertTrue(messages.contains("DeadLetterRedriven: console: " + user + " redrove dead letter " + first
                    + " of queue default"), messages.toString());
            assertTrue(messages.contains("DeadLetterDeleted: console: " + user + " deleted dead letter " + second
                    + " of queue default"), messages.toString());
            assertTrue(messages.contains("ScheduleSuspended: console: " + user + " suspended schedule nightly"),
                    messages.toString());
        });
    }

    private static ConsoleClient signedIn(String serviceAccount) throws Exception {
        String token = client.serviceAccounts().inNamespace(ns).withName(serviceAccount)
                .tokenRequest(new TokenRequestBuilder().withNewSpec().withExpirationSeconds(600L).endSpec().build())
                .getStatus().getToken();
        ConsoleClient user = new ConsoleClient(console.port());
        HttpResponse<String> response = user.signIn(token);
        assertEquals(303, response.statusCode(), response.body());
        return user;
    }

    private static void role(String name, String... verbs) {
        client.resource(new ServiceAccountBuilder().withNewMetadata().withNamespace(ns).withName(name).endMetadata()
                .build()).create();
        client.resource(new RoleBuilder().withNewMetadata().withNamespace(ns).withName(name).endMetadata()
                .addNewRule().withApiGroups("backstage.dev")
                .withResources("backstageworkerpools", "backstagetopologies").withVerbs(verbs).endRule().build())
                .create();
        client.resource(new RoleBindingBuilder().withNewMetadata().withNamespace(ns).withName(name).endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "Role", name)
                .addNewSubject().withKind("ServiceAccount").withName(name).withNamespace(ns).endSubject().build())
                .create();
    }

    private static String deadLetter(String payload) {
        return redis.xadd(new RedisKeys(prefix).deadLetter("default"), Map.of("taskName", "processOrder",
                "payload", payload, "error", "boom", "deliveryCount", "5",
                "deadLetteredAt", String.valueOf(System.currentTimeMillis()), "originalId", "0-1",
                "enqueuedAt", "0"));
    }
}
