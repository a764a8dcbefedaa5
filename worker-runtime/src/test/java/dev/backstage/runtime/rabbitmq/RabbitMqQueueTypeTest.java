package dev.backstage.runtime.rabbitmq;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The queue type as the broker reports it where the declarations leave it open: topic subscriber queues on the
 * 3-node cluster with {@code queueType: quorum}, and a prefix whose queues already exist as classic queues when a
 * topology or worker with {@code queueType: quorum} comes to it (an operator upgrade renders quorum for topologies
 * that never set a type). RabbitMQ cannot change a queue's type in place, so that case must fail, saying what to
 * do, and never run on the classic queues as if they were replicated.
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

    @AfterEach
    void tearDown() throws Exception {
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
    void givenClassicQueuesOnThePrefix_whenQueueTypeQuorumIsDeclared_thenItFailsSayingWhatToDo_andTheQueuesStayClassic()
            throws Exception {
        single.provider("classic").declarer().declare(ORDERS);
        String work = single.queue("orders");
        assertEquals("classic", single.queueInfo(work).path("type").asText());

        List<DeclaredObject> declared =
                single.provider("topology", QUORUM).declarer().declare(ORDERS);
        DeclaredObject workQueue =
                declared.stream().filter(o -> o.name().equals(work)).findFirst().orElseThrow();
        assertEquals(DeclaredObject.State.FAILED, workQueue.state(), declared.toString());
        assertSaysWhatToDo(workQueue.detail(), work);

        Worker worker = single.worker("quorum-worker", QUORUM).queues("orders").build();
        worker.register("t", Event.class, (ctx, e) -> Next.done());
        RuntimeException refused = assertThrows(RuntimeException.class, worker::start);
        worker.close();
        assertSaysWhatToDo(refused.getMessage(), single.queue("orders.dead-letter"));
        System.out.println("quorum over classic queues: " + refused.getMessage());

        assertEquals("classic", single.queueInfo(work).path("type").asText(), "the queue kept its type");
        assertEquals(
                "classic",
                single.queueInfo(single.queue("orders.dead-letter"))
                        .path("type")
                        .asText());
    }

    @Test
    void givenQuorumQueues_whenAProviderWithTheClassicDefaultPublishes_thenItUsesThemAsTheyAre() throws Exception {
        single.provider("topology", QUORUM).declarer().declare(ORDERS);
        String work = single.queue("orders");
        assertEquals("quorum", single.queueInfo(work).path("type").asText());

        // A hand-configured client (the CLI, say) has the library's classic default: the queue is safer than it
        // asked for, so it is used.
        single.provider("cli").jobs().publish(OutgoingJob.fresh("orders", "t", "{\"id\":\"1\"}", JobMeta.NONE));

        assertEquals(1, single.countByGet(work), "the job is in the quorum queue");
        assertEquals("quorum", single.queueInfo(work).path("type").asText());
    }

    private static void assertSaysWhatToDo(String message, String queue) {
        assertEquals(1, message.lines().count(), message);
        assertTrue(message.contains("queue " + queue + " exists as a classic queue"), message);
        assertTrue(message.contains("another keyPrefix"), message);
        assertTrue(message.contains("queueType: classic"), message);
        assertTrue(message.contains("delete it"), message);
        assertFalse(message.contains("PRECONDITION_FAILED"), "not the broker's raw refusal: " + message);
    }
}
