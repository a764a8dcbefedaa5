package dev.backstage.runtime.rabbitmq;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.spi.DeclaredObject;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.OutgoingJob;
import dev.backstage.runtime.spi.Subscription;
import dev.backstage.runtime.spi.TopologyRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The queue type as the broker reports it where the declarations leave it open: topic subscriber queues on the
 * 3-node cluster with {@code queueType: quorum}, and a prefix whose queues already exist as classic queues when a
 * topology or worker with {@code queueType: quorum} comes to it (an operator upgrade renders quorum for topologies
 * that never set a type). RabbitMQ cannot change a queue's type in place, so those queues are used as they are, and
 * each is reported once with a WARN line saying that it is not replicated and how to move to quorum queues.
 */
@Tag("broker")
class RabbitMqQueueTypeTest {
    record Event(String id) {}

    private static final Map<String, String> QUORUM =
            Map.of(RabbitMqSettings.OPTION_QUEUE_TYPE, QueueType.QUORUM.wire());
    private static final TopologyRequest ORDERS =
            new TopologyRequest(List.of(TopologyRequest.QueueSpec.named("orders")), List.of(), true, null);

    private final RabbitMqTestBroker cluster = new RabbitMqTestBroker(RabbitMqShape.CLUSTER_QUORUM);
    private final RabbitMqTestBroker single = new RabbitMqTestBroker(RabbitMqShape.SINGLE_CLASSIC);

    /** What BrokerAdmin logs during the test (its warnings about classic queues under quorum settings). */
    private final ListAppender<ILoggingEvent> warnings = new ListAppender<>();

    private final Logger brokerAdminLog = (Logger) LoggerFactory.getLogger(BrokerAdmin.class);

    @BeforeEach
    void captureWarnings() {
        warnings.start();
        brokerAdminLog.addAppender(warnings);
    }

    @AfterEach
    void tearDown() throws Exception {
        brokerAdminLog.detachAppender(warnings);
        cluster.close();
        single.close();
    }

    @Test
    void givenQueueTypeQuorum_whenWorkersSubscribe_thenTheGroupQueueIsAQuorumQueue_andTheFanOutQueueStaysClassic()
            throws Exception {
        Worker worker = cluster.worker("subscriber").build();
        worker.subscribe(Subscription.group("orders", "billing"), Event.class, (ctx, e) -> Next.done());
        worker.subscribe(Subscription.fanOut("orders"), Event.class, (ctx, e) -> Next.done());
        worker.start();
        try {
            String group = cluster.queue("topic.orders.billing");
            await("the group queue on the broker")
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> cluster.exists(group));
            JsonNode info = cluster.queueInfo(group);
            assertEquals("quorum", info.path("type").asText(), info.toString());
            assertEquals(3, info.path("members").size(), "a member on each node: " + info.path("members"));
            JsonNode arguments = info.path("arguments");
            assertEquals(20, arguments.path("x-delivery-limit").asInt(), arguments.toString());
            assertEquals(
                    group + ".dead-letter",
                    arguments.path("x-dead-letter-routing-key").asText(),
                    "the group's dead letters are the target of its delivery limit");
            assertEquals(
                    "quorum",
                    cluster.queueInfo(group + ".dead-letter").path("type").asText());

            // The fan-out subscriber's queue belongs to this worker's connection: exclusive, auto-delete, classic.
            String fanOutPrefix = cluster.queue("topic.orders.fanout.");
            JsonNode fanOut = await("the fan-out queue listed by the management API")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(500))
                    .until(
                            () -> StreamSupport.stream(
                                            cluster.get(
                                                            "/api/queues/%2F?columns=name,type,exclusive,auto_delete,durable")
                                                    .spliterator(),
                                            false)
                                    .filter(q -> q.path("name").asText().startsWith(fanOutPrefix))
                                    .findFirst()
                                    .orElse(null),
                            q -> q != null);
            assertEquals("classic", fanOut.path("type").asText(), fanOut.toString());
            assertTrue(fanOut.path("exclusive").asBoolean(), fanOut.toString());
            assertTrue(fanOut.path("auto_delete").asBoolean(), fanOut.toString());
            assertFalse(fanOut.path("durable").asBoolean(), fanOut.toString());
        } finally {
            worker.close();
        }
    }

    @Test
    void givenClassicQueuesOnThePrefix_whenQueueTypeQuorumIsUsed_thenTheyAreUsedAsTheyAre_andEachIsReportedOnce()
            throws Exception {
        String work = single.queue("orders");
        String deadLetters = single.queue("orders.dead-letter");
        RabbitMqProvider classic = single.provider("classic");
        classic.declarer().declare(ORDERS);
        int jobs = 20;
        for (int i = 0; i < jobs; i++) {
            classic.jobs().publish(OutgoingJob.fresh("orders", "t", "{\"id\":\"" + i + "\"}", JobMeta.NONE));
        }
        assertEquals("classic", single.queueInfo(work).path("type").asText());
        assertEquals(jobs, single.ready(work));

        warnings.list.clear();
        RabbitMqProvider topology = single.provider("topology", QUORUM);
        for (int declarations = 0; declarations < 2; declarations++) {
            List<DeclaredObject> declared = topology.declarer().declare(ORDERS);
            assertTrue(declared.stream().allMatch(o -> o.state() == DeclaredObject.State.EXISTED), declared.toString());
        }
        assertReportedOnce(warnings, work);
        assertReportedOnce(warnings, deadLetters);

        warnings.list.clear();
        Set<String> ran = ConcurrentHashMap.newKeySet();
        Worker worker = single.worker("quorum-worker", QUORUM).queues("orders").build();
        worker.register("t", Event.class, (ctx, e) -> {
            ran.add(e.id());
            return Next.done();
        });
        worker.start();
        try {
            await("the worker runs the jobs queued before it started")
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> ran.size() == jobs);
            // The broker's own count: nothing left ready in the queue, nothing dead-lettered.
            await("the broker's work queue is empty")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> single.ready(work) == 0);
            assertEquals(0, single.ready(deadLetters), "no job was dead-lettered");
        } finally {
            worker.close();
        }
        assertReportedOnce(warnings, work);
        assertReportedOnce(warnings, deadLetters);
        System.out.println("quorum over classic queues: " + warnings.list.get(0).getFormattedMessage());

        assertEquals(0, single.countByGet(work), "every job was acked: none came back when the worker closed");
        assertEquals("classic", single.queueInfo(work).path("type").asText(), "the queue kept its type");
        assertEquals("classic", single.queueInfo(deadLetters).path("type").asText(), "the queue kept its type");
    }

    @Test
    void givenQuorumQueues_whenAProviderWithTheClassicDefaultPublishes_thenItUsesThemAsTheyAre() throws Exception {
        RabbitMqProvider topology = single.provider("topology", QUORUM);
        topology.declarer().declare(ORDERS);
        String work = single.queue("orders");
        assertEquals("quorum", single.queueInfo(work).path("type").asText());
        // Declared again over existing quorum queues: the type probe finds them quorum and reports nothing.
        topology.declarer().declare(ORDERS);
        assertTrue(
                warnings.list.stream().noneMatch(e -> e.getFormattedMessage().contains("exists as a classic queue")),
                warnings.list.toString());

        // A hand-configured client (the CLI, say) has the library's classic default: the queue is safer than it
        // asked for, so it is used.
        single.provider("cli").jobs().publish(OutgoingJob.fresh("orders", "t", "{\"id\":\"1\"}", JobMeta.NONE));

        assertEquals(1, single.countByGet(work), "the job is in the quorum queue");
        assertEquals("quorum", single.queueInfo(work).path("type").asText());
    }

    /** Exactly one WARN line for {@code queue} that says what the mismatch means and what to do. */
    private static void assertReportedOnce(ListAppender<ILoggingEvent> appender, String queue) {
        List<ILoggingEvent> lines = appender.list.stream()
                .filter(e -> e.getFormattedMessage().startsWith("queue " + queue + " exists as a classic queue"))
                .toList();
        assertEquals(1, lines.size(), "one line for " + queue + ": " + lines);
        ILoggingEvent line = lines.get(0);
        String message = line.getFormattedMessage();
        assertEquals(Level.WARN, line.getLevel(), message);
        assertEquals(1, message.lines().count(), message);
        assertTrue(message.contains("(not replicated) while queueType is quorum"), message);
        assertTrue(message.contains("it is used as it is"), message);
        assertTrue(message.contains("use another keyPrefix"), message);
        assertTrue(message.contains("\"Migrating from classic to quorum\""), message);
    }
}
