package dev.backstage.operator.console;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.redis.RedisKeys;
import dev.backstage.runtime.redis.RedisProvider;
import dev.backstage.runtime.redis.RedisSettings;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lettuce.core.Range;
import io.lettuce.core.api.sync.RedisCommands;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The console against the real API server (TokenReview, SubjectAccessReview, informers, Events, a JSON patch) and the
 * real Redis (dead letters), over plain HTTP: a reader may look but not act, a writer may act, a stranger's token is
 * refused, and every action is an Event naming its user. One {@link ConsoleFixture} for the class.
 */
@Tag("cluster")
@Tag("broker")
class ConsoleOnApiServerTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static ConsoleFixture fixture;
    private static KubernetesClient client;
    private static String ns;
    private static String prefix;
    private static RedisCommands<String, String> redis;
    private static Console console;

    @BeforeAll
    static void start() throws Exception {
        fixture = new ConsoleFixture();
        client = fixture.client;
        ns = fixture.ns;
        prefix = fixture.prefix;
        redis = fixture.redis;
        console = fixture.console;
    }

    @AfterAll
    static void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @Test
    void givenATokenTheApiServerDoesNotKnow_whenSigningIn_thenTheConsoleRefusesAndKeepsNoSession() throws Exception {
        ConsoleClient stranger = new ConsoleClient(console.port());
        HttpResponse<String> response = stranger.signIn("not-a-real-token");
        assertEquals(401, response.statusCode());
        assertTrue(response.body().contains("does not accept this token"), response.body());
        assertFalse(response.body().contains("not-a-real-token"), "the token is never echoed");
        assertEquals(303, stranger.get("/").statusCode(), "unsigned requests go to /signin");
        assertEquals(
                401,
                stranger.post("/pools/" + ns + "/workers/dead-letters/redrive-all", "queue=default")
                        .statusCode());
    }

    @Test
    void givenACrossSitePost_whenItSignsInOrActs_thenTheConsoleRefusesItAndNothingChanges() throws Exception {
        // Login CSRF: a page elsewhere posts a token to /signin. The browser sends no sign-in cookie cross-site
        // (SameSite=Strict) and the page cannot know the form token: refused, no session.
        ConsoleClient victim = new ConsoleClient(console.port());
        HttpResponse<String> forged = victim.post(
                "/signin",
                "form=guess&token="
                        + java.net.URLEncoder.encode(fixture.token("writer"), java.nio.charset.StandardCharsets.UTF_8));
        assertEquals(403, forged.statusCode());
        assertTrue(forged.body().contains("This sign-in form expired or came from another site"), forged.body());
        assertTrue(
                forged.headers().allValues("Set-Cookie").stream()
                        .noneMatch(c -> c.startsWith(ConsoleServer.COOKIE + "=")),
                "no session cookie");
        assertEquals(
                403,
                victim.post("/signin", "form=x&token=y", "Origin", "https://evil.example")
                        .statusCode());

        // A signed-in writer's browser carrying a form of another site: refused before the token is even looked at.
        ConsoleClient writer = signedIn("writer");
        String id = deadLetter("{\"n\":\"cross-site\"}");
        writer.get("/pools/" + ns + "/workers/dead-letters?queue=default");
        String path = "/pools/" + ns + "/workers/dead-letters/delete";
        String form = "csrf=" + java.net.URLEncoder.encode(writer.csrf(), java.nio.charset.StandardCharsets.UTF_8)
                + "&queue=default&id=" + id;
        HttpResponse<String> fromElsewhere = writer.post(path, form, "Origin", "https://evil.example");
        assertEquals(403, fromElsewhere.statusCode());
        assertTrue(fromElsewhere.body().startsWith("a form from another site is refused"), fromElsewhere.body());
        assertEquals(
                403, writer.post(path, form, "Sec-Fetch-Site", "cross-site").statusCode());
        assertEquals(1, redis.xlen(new RedisKeys(prefix).deadLetter("default")), "still dead-lettered");
        redis.del(new RedisKeys(prefix).deadLetter("default"));
    }

    @Test
    void givenAReader_whenTheyOpenThePagesAndTryToAct_thenTheySeeEverythingAndChangeNothing() throws Exception {
        ConsoleClient reader = signedIn("reader");
        await("the pool is in the overview").atMost(WAIT).untilAsserted(() -> {
            String overview = reader.get("/").body();
            assertTrue(overview.contains("data-pool=\"" + ns + "/workers\""), overview);
            // As the API server holds it now (on the shared control plane another engineer's operator may be
            // reconciling this pool too, and write replicas of its own).
            BackstageWorkerPoolStatus now = client.resources(BackstageWorkerPool.class)
                    .inNamespace(ns)
                    .withName("workers")
                    .get()
                    .getStatus();
            assertTrue(
                    overview.contains(">" + now.getReadyReplicas() + " / " + now.getDesiredReplicas() + "<")
                            && overview.contains(now.getLastScaleReason()),
                    overview);
        });
        String pool = reader.get("/pools/" + ns + "/workers").body();
        assertTrue(pool.contains("<svg class=\"plot\""), pool);
        assertTrue(pool.contains("does not allow 'list' on events in " + ns), "no Events without list on events");
        String schedules = reader.get("/schedules?namespace=" + ns).body();
        assertTrue(schedules.contains("data-schedule=\"nightly\""), schedules);

        String id = deadLetter("{\"order\":\"<script>alert(1)</script>\"}");
        String page = reader.get("/pools/" + ns + "/workers/dead-letters?queue=default")
                .body();
        assertTrue(page.contains("data-id=\"" + id + "\""), page);
        assertTrue(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), page);
        assertFalse(page.contains("<script>alert"), page);

        HttpResponse<String> refused =
                reader.act("/pools/" + ns + "/workers/dead-letters/redrive", "queue", "default", "id", id);
        assertEquals(403, refused.statusCode());
        assertTrue(refused.body().contains("may not update backstageworkerpools " + ns + "/workers"), refused.body());
        assertEquals(
                403,
                reader.act("/schedules/" + ns + "/orders/suspend", "schedule", "nightly")
                        .statusCode());
        assertEquals(1, redis.xlen(new RedisKeys(prefix).deadLetter("default")), "still dead-lettered");
        redis.del(new RedisKeys(prefix).deadLetter("default"));
    }

    @Test
    void givenAWriter_whenTheyRedriveDeleteAndSuspend_thenTheJobRunsTheApiServerChangesAndEventsNameThem()
            throws Exception {
        ConsoleClient writer = signedIn("writer");
        RedisKeys keys = new RedisKeys(prefix);
        String first = deadLetter("{\"n\":1}");
        String second = deadLetter("{\"n\":2}");
        await("the pool is cached")
                .atMost(WAIT)
                .until(() -> writer.get("/pools/" + ns + "/workers/dead-letters?queue=default")
                                .statusCode()
                        == 200);

        HttpResponse<String> noCsrf =
                writer.post("/pools/" + ns + "/workers/dead-letters/redrive", "queue=default&id=" + first);
        assertEquals(403, noCsrf.statusCode(), "a form without the session's CSRF token is refused");
        assertEquals(2, redis.xlen(keys.deadLetter("default")));

        assertEquals(
                404,
                writer.get("/pools/" + ns + "/workers/dead-letters/redrive?queue=default&id=" + first)
                        .statusCode(),
                "an action is never a GET");
        assertEquals(2, redis.xlen(keys.deadLetter("default")));
        writer.get("/pools/" + ns + "/workers/dead-letters?queue=default");
        // A worker on the queue: the redriven job runs, under the job id it had before it was dead-lettered.
        List<String> ran = new CopyOnWriteArrayList<>();
        try (Worker worker = Worker.builder()
                .provider(RedisProvider.connect(
                        RedisSettings.of(ConsoleFixture.REDIS).withPrefix(prefix)))
                .queues("default")
                .concurrency(1)
                .shutdownGrace(Duration.ofSeconds(2))
                .build()) {
            worker.register("processOrder", Map.class, (ctx, payload) -> {
                ran.add(ctx.jobId() + " " + payload);
                return Next.done();
            });
            worker.start();
            assertEquals(
                    303,
                    writer.act("/pools/" + ns + "/workers/dead-letters/redrive", "queue", "default", "id", first)
                            .statusCode());
            assertEquals(
                    List.of(second),
                    redis.xrange(keys.deadLetter("default"), Range.create("-", "+")).stream()
                            .map(m -> m.getId())
                            .toList());
            await("the redriven job runs").atMost(WAIT).until(() -> !ran.isEmpty());
        }
        assertEquals(List.of("0-1 {n=1}"), ran);
        assertTrue(writer.get("/pools/" + ns + "/workers/dead-letters?queue=default")
                .body()
                .contains("Redrove " + first));

        assertEquals(
                303,
                writer.act("/pools/" + ns + "/workers/dead-letters/delete", "queue", "default", "id", second)
                        .statusCode());
        assertEquals(0, redis.xlen(keys.deadLetter("default")));

        writer.get("/schedules");
        assertEquals(
                303,
                writer.act("/schedules/" + ns + "/orders/suspend", "schedule", "nightly")
                        .statusCode());
        assertEquals(
                Boolean.TRUE,
                client.resources(BackstageTopology.class)
                        .inNamespace(ns)
                        .withName("orders")
                        .get()
                        .getSpec()
                        .getSchedules()
                        .get(0)
                        .getSuspend());

        String user = "system:serviceaccount:" + ns + ":writer";
        fixture.events.flush(Duration.ofSeconds(10));
        await("Events name the user").atMost(WAIT).untilAsserted(() -> {
            List<String> messages = client.v1().events().inNamespace(ns).list().getItems().stream()
                    .map(e -> e.getReason() + ": " + e.getMessage())
                    .toList();
            assertTrue(
                    messages.contains("DeadLetterRedriven: console: " + user + " redrove dead letter " + first
                            + " of queue default"),
                    messages.toString());
            assertTrue(
                    messages.contains("DeadLetterDeleted: console: " + user + " deleted dead letter " + second
                            + " of queue default"),
                    messages.toString());
            assertTrue(
                    messages.contains("ScheduleSuspended: console: " + user + " suspended schedule nightly"),
                    messages.toString());
        });
        String poolPage = writer.get("/pools/" + ns + "/workers").body();
        assertTrue(
                poolPage.contains("<td>DeadLetterRedriven</td>") && poolPage.contains("<td>DeadLetterDeleted</td>"),
                poolPage);
    }

    @Test
    void givenARabbitMqPool_whenAWriterPagesRedrivesAndDeletesInTheConsole_thenTheBrokersQueuesChange()
            throws Exception {
        String amqpUrl = "amqp://guest:guest@127.0.0.1:5672";
        String rabbitPrefix = prefix + "-rmq";
        String deadLetters = rabbitPrefix + ".default.dead-letter";
        client.resource(new io.fabric8.kubernetes.api.model.SecretBuilder()
                        .withNewMetadata()
                        .withNamespace(ns)
                        .withName("rabbit")
                        .endMetadata()
                        .withStringData(Map.of("url", amqpUrl))
                        .build())
                .create();
        BackstageTopology topology =
                dev.backstage.operator.testing.BackstageFixtures.redisTopology(ns, "rabbit", "default");
        topology.getSpec().setProvider(dev.backstage.operator.model.ProviderType.RABBITMQ);
        topology.getSpec().setConnection(new dev.backstage.operator.model.SecretKeyReference("rabbit", "url"));
        topology.getSpec().setKeyPrefix(rabbitPrefix);
        // The test declares the dead-letter queue itself, as a classic queue, so the topology says so (quorum
        // settings would use it as it is, with a warning).
        dev.backstage.operator.model.RabbitMqSettings rabbit = new dev.backstage.operator.model.RabbitMqSettings();
        rabbit.setQueueType(dev.backstage.operator.model.RabbitMqQueueType.CLASSIC);
        topology.getSpec().setRabbitmq(rabbit);
        client.resource(topology).create();
        client.resource(dev.backstage.operator.testing.BackstageFixtures.pool(
                        ns, "rabbit-workers", "rabbit", "default"))
                .create();
        com.rabbitmq.client.ConnectionFactory factory = new com.rabbitmq.client.ConnectionFactory();
        factory.setUri(amqpUrl);
        try (com.rabbitmq.client.Connection amqp = factory.newConnection("console-test");
                com.rabbitmq.client.Channel ch = amqp.createChannel()) {
            ch.queueDeclare(deadLetters, true, false, false, null);
            for (int n = 0; n < 25; n++) {
                ch.basicPublish(
                        "",
                        deadLetters,
                        null,
                        ("{\"taskName\":\"send\",\"payload\":{\"n\":" + n + "},\"jobId\":\"job-" + n
                                        + "\",\"deliveryCount\":3,\"error\":\"boom\"}")
                                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            ConsoleClient writer = signedIn("writer");
            String page = "/pools/" + ns + "/rabbit-workers/dead-letters?queue=default";
            await("the pool is cached")
                    .atMost(WAIT)
                    .until(() -> writer.get(page).statusCode() == 200);
            String first = writer.get(page).body();
            assertEquals(20, first.split("<tr class=\"dead-letter\"", -1).length - 1, first);
            assertTrue(first.contains("href=\"" + page.replace("&", "&amp;") + "&amp;after=job-19\">Next page"), first);
            String second = writer.get(page + "&after=job-19").body();
            assertEquals(5, second.split("<tr class=\"dead-letter\"", -1).length - 1, second);
            assertTrue(second.contains("data-id=\"job-22\""), second);
            assertTrue(
                    second.contains("action=\"/pools/" + ns + "/rabbit-workers/dead-letters/delete\""),
                    "single-entry actions are offered: " + second);

            assertEquals(
                    303,
                    writer.act(
                                    "/pools/" + ns + "/rabbit-workers/dead-letters/redrive",
                                    "queue",
                                    "default",
                                    "id",
                                    "job-22")
                            .statusCode());
            assertEquals(
                    303,
                    writer.act(
                                    "/pools/" + ns + "/rabbit-workers/dead-letters/delete",
                                    "queue",
                                    "default",
                                    "id",
                                    "job-3")
                            .statusCode());
            // The broker's own queues: 23 dead letters left, and job-22 on the work queue as a fresh job.
            assertEquals(23, ch.queueDeclarePassive(deadLetters).getMessageCount());
            com.rabbitmq.client.GetResponse job = ch.basicGet(rabbitPrefix + ".default", true);
            String body = new String(job.getBody(), java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(body.contains("\"jobId\":\"job-22\"") && body.contains("\"deliveryCount\":1"), body);
            assertEquals(0, ch.queueDeclarePassive(rabbitPrefix + ".default").getMessageCount());
        } finally {
            new dev.backstage.testsupport.RabbitMqQueues(amqpUrl).deleteQueuesAndExchanges(rabbitPrefix);
        }
    }

    private static ConsoleClient signedIn(String serviceAccount) throws Exception {
        ConsoleClient user = new ConsoleClient(console.port());
        HttpResponse<String> response = user.signIn(fixture.token(serviceAccount));
        assertEquals(303, response.statusCode(), response.body());
        return user;
    }

    private static String deadLetter(String payload) {
        return fixture.deadLetter(payload);
    }
}
