package dev.backstage.operator.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.backstage.operator.events.EventRecorder;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageTopologyStatus;
import dev.backstage.operator.model.CapabilityBackend;
import dev.backstage.operator.model.ProviderType;
import dev.backstage.operator.model.RabbitMqQueueType;
import dev.backstage.operator.model.RabbitMqSettings;
import dev.backstage.operator.model.ScheduleSpec;
import dev.backstage.operator.model.ScheduleStatus;
import dev.backstage.operator.model.SecretKeyReference;
import dev.backstage.operator.model.SuppliedCapabilities;
import dev.backstage.operator.testing.BackstageFixtures;
import dev.backstage.operator.testing.RealApiServer;
import dev.backstage.runtime.spi.Providers;
import dev.backstage.testsupport.ControlPlane;
import dev.backstage.testsupport.RabbitMqQueues;
import dev.backstage.testsupport.SimulatedClock;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Two (then three) operators' schedule firing on one topology, on the real API server and the real Redis, on a
 * simulated clock: the old leader A, the new leader B taking over mid-minute while A has not yet noticed (both fire
 * for 100 s), A gone, then B crashing and C starting 3.5 minutes later. Every tick is enqueued once (counted on the
 * stream), the gap follows startingDeadlineSeconds, and {@code kubectl get} shows the status.
 */
@Tag("cluster")
class ScheduleFailoverTest {
    private static final String REDIS_URL =
            System.getenv().getOrDefault("BACKSTAGE_REDIS_URL", "redis://127.0.0.1:6379");
    private static final Instant START = Instant.parse("2026-01-01T00:00:30Z");
    private static final Duration STEP = Duration.ofSeconds(10);

    private RealApiServer api;
    private KubernetesClient client;
    private String namespace;
    private String prefix;
    private final RedisClient redis = RedisClient.create(REDIS_URL);
    private StatefulRedisConnection<String, String> connection;
    private final SimulatedClock clock = new SimulatedClock(START);
    private final List<ScheduleFiring> firings = new ArrayList<>();
    private final ExecutorService threads = Executors.newFixedThreadPool(2);

    @BeforeEach
    void setUp() {
        api = RealApiServer.shared();
        client = api.client();
        namespace = api.namespace("cron");
        connection = redis.connect();
        client.secrets()
                .inNamespace(namespace)
                .resource(new SecretBuilder()
                        .withNewMetadata()
                        .withName("redis")
                        .endMetadata()
                        .addToStringData("url", REDIS_URL)
                        .build())
                .create();
    }

    @AfterEach
    void tearDown() {
        threads.shutdownNow();
        firings.forEach(ScheduleFiring::stop);
        if (prefix != null) {
            var keys = connection.sync().keys(prefix + ":*");
            if (!keys.isEmpty()) {
                connection.sync().del(keys.toArray(String[]::new));
            }
        }
        connection.close();
        redis.shutdown();
        api.deleteNamespace(namespace);
    }

    private ScheduleFiring operator(String identity) {
        ScheduleFiring firing = new ScheduleFiring(
                client,
                new EventRecorder(client, "backstage-operator", identity, clock),
                clock,
                ScheduleFiring.PERIOD,
                Providers::create);
        firings.add(firing);
        return firing;
    }

    private BackstageTopology read(String name) {
        return client.resources(BackstageTopology.class)
                .inNamespace(namespace)
                .withName(name)
                .get();
    }

    /** Runs every given operator's turn at once (each on its own thread), once per step, until {@code until}. */
    private void runUntil(String topology, Instant until, ScheduleFiring... operators) throws Exception {
        while (clock.instant().isBefore(until)) {
            clock.advance(STEP);
            List<Callable<Object>> turns = new ArrayList<>();
            for (ScheduleFiring operator : operators) {
                turns.add(() -> operator.turn(read(topology))); // each from its own read, as from its informer
            }
            for (Future<Object> turn : threads.invokeAll(turns)) {
                turn.get();
            }
        }
    }

    private long jobs(String queue) {
        return connection.sync().xlen(prefix + ":" + queue);
    }

    private ScheduleStatus status(String topology, String schedule) {
        return read(topology).getStatus().getSchedules().stream()
                .filter(s -> s.getName().equals(schedule))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void givenAFailoverMidMinute_thenNoTickIsDoubledOrLost_andACrashGapFollowsTheStartingDeadline() throws Exception {
        BackstageTopology topology = BackstageFixtures.redisTopology(namespace, "orders", "reports", "audit");
        topology.getSpec().getConnection().setSecretName("redis");
        prefix = "cronfo-" + namespace.substring(namespace.length() - 8);
        topology.getSpec().setKeyPrefix(prefix);
        topology.getSpec()
                .setSchedules(List.of(schedule("every-minute", "reports", 90L), schedule("tight", "audit", 20L)));
        client.resource(topology).create();
        // The topology reconciler writes the first status; here the test does (the firing never starts a status).
        client.resources(BackstageTopology.class)
                .inNamespace(namespace)
                .withName("orders")
                .editStatus(t -> {
                    t.setStatus(new BackstageTopologyStatus());
                    return t;
                });

        ScheduleFiring a = operator("operator-a");
        ScheduleFiring b = operator("operator-b");
        runUntil("orders", Instant.parse("2026-01-01T00:07:20Z"), a); // A leads
        runUntil("orders", Instant.parse("2026-01-01T00:09:00Z"), a, b); // B took over mid-minute; A not yet out
        runUntil("orders", Instant.parse("2026-01-01T00:15:10Z"), b); // A gone
        long expected = 15; // 00:01 … 00:15
        System.out.printf(
                "failover A -> B at 00:07:20 (both firing until 00:09:00): '* * * * *' ticks expected %d,"
                        + " jobs enqueued %d (XLEN %s:reports); schedule 'tight': ticks expected %d, jobs enqueued %d%n",
                expected, jobs("reports"), prefix, expected, jobs("audit"));
        assertEquals(expected, jobs("reports"));
        assertEquals(expected, jobs("audit"));
        assertEquals("2026-01-01T00:15:00Z", status("orders", "every-minute").getLastFiredTick());
        assertEquals(0L, status("orders", "every-minute").getMissedTicks());
        // The last five ticks, newest first, each with the id of the job it put on the stream (as Redis holds it).
        List<dev.backstage.operator.model.FiredTick> recent =
                status("orders", "every-minute").getRecentTicks();
        assertEquals(
                List.of(
                        "2026-01-01T00:15:00Z",
                        "2026-01-01T00:14:00Z",
                        "2026-01-01T00:13:00Z",
                        "2026-01-01T00:12:00Z",
                        "2026-01-01T00:11:00Z"),
                recent.stream().map(t -> t.getTick()).toList());
        List<String> streamIds = new ArrayList<>(
                connection.sync().xrange(prefix + ":reports", io.lettuce.core.Range.create("-", "+")).stream()
                        .map(m -> m.getId())
                        .toList());
        java.util.Collections.reverse(streamIds);
        assertEquals(
                streamIds.subList(0, 5), recent.stream().map(t -> t.getJobId()).toList());

        // B crashes at 00:15:10; C starts at 00:18:40: 00:16, 00:17 and 00:18 came and went.
        b.stop();
        clock.set(Instant.parse("2026-01-01T00:18:30Z"));
        ScheduleFiring c = operator("operator-c");
        runUntil("orders", Instant.parse("2026-01-01T00:20:10Z"), c);
        ScheduleStatus everyMinute = status("orders", "every-minute");
        ScheduleStatus tight = status("orders", "tight");
        System.out.printf(
                "crash gap 00:15:10 -> 00:18:40: every-minute (startingDeadlineSeconds 90): ticks %d, jobs"
                        + " %d, missed %d; tight (startingDeadlineSeconds 20): ticks %d, jobs %d, missed %d%n",
                20, jobs("reports"), everyMinute.getMissedTicks(), 20, jobs("audit"), tight.getMissedTicks());
        // every-minute: 00:18 was 40 s late, within 90 s: fired; 00:16 and 00:17 missed.
        assertEquals(18, jobs("reports"));
        assertEquals(2L, everyMinute.getMissedTicks());
        assertEquals("2026-01-01T00:20:00Z", everyMinute.getLastFiredTick());
        assertEquals("2026-01-01T00:21:00Z", everyMinute.getNextTick());
        // tight: 00:18 was 40 s late, past 20 s: skipped; 00:16, 00:17, 00:18 missed; 00:19 and 00:20 fired.
        assertEquals(17, jobs("audit"));
        assertEquals(3L, tight.getMissedTicks());
        assertEquals("2026-01-01T00:18:00Z", tight.getLastSkippedTick());

        ControlPlane cp = api.controlPlane();
        String table = cp.kubectl("get", "btp", "-n", namespace).orThrow().out();
        String statuses = cp.kubectl(
                        "get",
                        "btp",
                        "orders",
                        "-n",
                        namespace,
                        "-o",
                        "jsonpath={range .status.schedules[*]}{.name}{'\\t'}lastFired={.lastFiredTick}{'\\t'}next={.nextTick}"
                                + "{'\\t'}missed={.missedTicks}{'\\t'}lastSkipped={.lastSkippedTick}{'\\n'}{end}")
                .orThrow()
                .out();
        // Events are written in the background: wait for the two this test is about.
        org.awaitility.Awaitility.await("the Events TicksMissed and TickSkipped")
                .atMost(Duration.ofSeconds(30))
                .until(() -> client.v1().events().inNamespace(namespace).list().getItems().stream()
                        .map(io.fabric8.kubernetes.api.model.Event::getReason)
                        .toList()
                        .containsAll(List.of("TicksMissed", "TickSkipped")));
        String events = cp.kubectl(
                        "get",
                        "events",
                        "-n",
                        namespace,
                        "--sort-by=.lastTimestamp",
                        "-o",
                        "custom-columns=TYPE:.type,REASON:.reason,COUNT:.count,FROM:.reportingInstance,MESSAGE:.message")
                .orThrow()
                .out();
        System.out.println("$ kubectl get btp -n " + namespace + "\n" + table);
        System.out.println("$ kubectl get btp orders -o jsonpath=<status.schedules>\n" + statuses);
        System.out.println("$ kubectl get events -n " + namespace + "\n" + events);
        assertTrue(
                table.lines().anyMatch(l -> l.matches("orders\\s+redis\\s+2\\s+2026-01-01T00:20:00Z\\s+\\S+")), table);
        assertTrue(events.contains("TicksMissed") && events.contains("TickSkipped"), events);
        assertNotNull(read("orders").getStatus().getSchedules());
    }

    @Test
    void givenRabbitMqWithSuppliedRedisDedupe_whenTwoOperatorsFireAtOnce_thenEachTickIsEnqueuedOnce() throws Exception {
        String rabbitUrl = System.getenv().getOrDefault("BACKSTAGE_RABBITMQ_URL", "amqp://guest:guest@127.0.0.1:5672");
        client.secrets()
                .inNamespace(namespace)
                .resource(new SecretBuilder()
                        .withNewMetadata()
                        .withName("rabbit")
                        .endMetadata()
                        .addToStringData("url", rabbitUrl)
                        .build())
                .create();
        BackstageTopology topology = BackstageFixtures.redisTopology(namespace, "payments", "reports");
        topology.getSpec().setProvider(ProviderType.RABBITMQ);
        topology.getSpec().getConnection().setSecretName("rabbit");
        prefix = "cronrmq-" + namespace.substring(namespace.length() - 8);
        topology.getSpec().setKeyPrefix(prefix);
        topology.getSpec()
                .setCapabilities(new SuppliedCapabilities(
                        null, new CapabilityBackend(ProviderType.REDIS, new SecretKeyReference("redis", "url"), null)));
        topology.getSpec().setSchedules(List.of(schedule("every-minute", "reports", null)));
        // The test declares the queue itself, as a classic queue, so the topology says so (quorum settings would
        // use it as it is, with a warning).
        RabbitMqSettings rabbit = new RabbitMqSettings();
        rabbit.setQueueType(RabbitMqQueueType.CLASSIC);
        topology.getSpec().setRabbitmq(rabbit);
        client.resource(topology).create();
        client.resources(BackstageTopology.class)
                .inNamespace(namespace)
                .withName("payments")
                .editStatus(t -> {
                    t.setStatus(new BackstageTopologyStatus());
                    return t;
                });
        // The queue the topology reconciler would declare.
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(rabbitUrl);
        try (Connection amqp = factory.newConnection(prefix + "-test")) {
            Channel channel = amqp.createChannel();
            String queue = prefix + ".reports";
            channel.queueDeclare(queue, true, false, false, null);
            try {
                ScheduleFiring a = operator("operator-a");
                ScheduleFiring b = operator("operator-b");
                runUntil("payments", Instant.parse("2026-01-01T00:10:05Z"), a, b); // both fire all along
                long enqueued = channel.queueDeclarePassive(queue).getMessageCount();
                System.out.printf(
                        "RabbitMQ + supplied Redis dedupe, two operators firing at once for 10 simulated"
                                + " minutes: ticks expected %d, jobs enqueued %d (messages ready on %s)%n",
                        10, enqueued, queue);
                assertEquals(10, enqueued);
                assertEquals(
                        "2026-01-01T00:10:00Z",
                        status("payments", "every-minute").getLastFiredTick());
                String body =
                        new String(channel.basicGet(queue, true).getBody(), java.nio.charset.StandardCharsets.UTF_8);
                assertTrue(body.contains("\"taskName\":\"report.build\""), body);
                // The claims live in the supplied Redis, under the topology's prefix: one per tick.
                assertEquals(
                        10,
                        connection
                                .sync()
                                .keys(prefix + ":dedupe:cron:every-minute:*")
                                .size());
            } finally {
                // The queue, and what the enqueueing producer declared (its dead-letter and delay-level queues).
                new RabbitMqQueues(rabbitUrl).deleteQueuesAndExchanges(prefix);
            }
        }
    }

    private static ScheduleSpec schedule(String name, String queue, Long deadline) {
        ScheduleSpec spec = new ScheduleSpec();
        spec.setName(name);
        spec.setSchedule("* * * * *");
        spec.setTask("report.build");
        spec.setQueue(queue);
        spec.setPayload(JsonNodeFactory.instance
                .arrayNode()
                .add(JsonNodeFactory.instance.objectNode().put("source", name)));
        spec.setStartingDeadlineSeconds(deadline);
        return spec;
    }
}
