package dev.backstage.runtime.rabbitmq;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.spi.Subscription;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A topic message past the retry policy on RabbitMQ goes, byte for byte with its message id and the reason in
 * headers, to the failing subscription's own durable dead-letter queue, confirmed before the original is acked;
 * another group is not touched. Every check reads the broker (queue counts, basic.get of the dead letter). On both
 * shapes ({@link RabbitMqShape}); final counts are taken with basic.get, since a passive declare of a quorum queue
 * can answer 0.
 */
@Tag("broker")
@ParameterizedClass(name = "{0}")
@EnumSource(RabbitMqShape.class)
class RabbitMqTopicDeadLetterTest {
    private final RabbitMqShape shape;
    private final RabbitMqTestBroker broker;

    RabbitMqTopicDeadLetterTest(RabbitMqShape shape) {
        this.shape = shape;
        broker = new RabbitMqTestBroker(shape);
    }

    @AfterEach
    void cleanUp() throws Exception {
        broker.close(); // deletes every queue and exchange under the test's prefix, the dead-letter queues among them
    }

    record Ride(String id) {}

    private static String header(GetResponse response, String name) {
        Object value = response.getProps().getHeaders().get(name);
        return value == null ? null : value.toString();
    }

    @Test
    void givenTwoGroupsAndOneAlwaysFailing_thenOnlyTheFailingGroupDeadLettersOneCopyWithTheOriginalBytesAndError()
            throws Exception {
        List<Integer> aRuns = new CopyOnWriteArrayList<>();
        List<String> bRuns = new CopyOnWriteArrayList<>();
        Worker w = broker.own(broker.worker("dl").maxDeliveries(1).build());
        w.subscribe(Subscription.group("rides", "a"), Ride.class, (ctx, ride) -> {
            aRuns.add(ctx.deliveryCount());
            throw new IllegalStateException("bad ride " + ride.id());
        });
        w.subscribe(Subscription.group("rides", "b"), Ride.class, (ctx, ride) -> bRuns.add(ctx.messageId()));
        w.start();
        String queueA = broker.queue("topic.rides.a");
        String queueB = broker.queue("topic.rides.b");
        await().atMost(Duration.ofSeconds(20))
                .ignoreExceptions()
                .until(() -> broker.ready(queueA) == 0 && broker.ready(queueB) == 0);

        // Published by hand so the original bytes and message id are known exactly.
        byte[] original = "{\"payload\":{\"id\":\"r9\"},\"publishedAt\":1700000000000,\"deliveryCount\":1}"
                .getBytes(StandardCharsets.UTF_8);
        Channel ch = broker.channel();
        ch.basicPublish(
                broker.prefix + ".topics",
                "rides",
                new AMQP.BasicProperties.Builder()
                        .contentType("application/json")
                        .deliveryMode(2)
                        .messageId("ride-msg-9")
                        .build(),
                original);
        ch.close();

        String deadA = broker.queue("topic.rides.a.dead-letter");
        await().atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() -> broker.ready(deadA) >= 1 && bRuns.size() == 1 && w.inFlight() == 0);
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> bRuns.size() == 1);
        // Closing the worker closes its channels: anything still unacked would be requeued and counted as ready.
        w.close();
        assertEquals(1, broker.countByGet(deadA), "exactly one dead-letter copy");
        assertEquals(0, broker.countByGet(queueA), "nothing left, ready or unacked, in group a's queue");
        assertEquals(0, broker.countByGet(queueB), "nothing left, ready or unacked, in group b's queue");
        assertTrue(broker.queueInfo(deadA).get("durable").asBoolean(), "the dead-letter queue is durable");
        Channel get = broker.channel();
        GetResponse dead = get.basicGet(deadA, true);
        get.close();
        assertNotNull(dead);
        // Delivery 2 was the retry copy, whose body carries the next delivery count (docs/wire-format.md); the rest of
        // the
        // body, the payload's text among it, is the original's.
        assertEquals(
                new String(original, StandardCharsets.UTF_8).replace("\"deliveryCount\":1", "\"deliveryCount\":2"),
                new String(dead.getBody(), StandardCharsets.UTF_8),
                "the failing delivery's body");
        assertEquals("ride-msg-9", dead.getProps().getMessageId(), "the original message id");
        assertEquals(2, dead.getProps().getDeliveryMode(), "persistent");
        String error = header(dead, TopicDeadLetters.ERROR);
        assertTrue(error.contains("bad ride r9") && error.contains("failed 2 times"), error);
        assertEquals("2", header(dead, TopicDeadLetters.DELIVERY_COUNT));
        assertEquals("rides", header(dead, TopicDeadLetters.TOPIC));
        assertEquals(List.of(1, 2), aRuns, "maxDeliveries 1, the jobs' rule: deliveries 1 and 2, then dead-lettered");
        assertEquals(List.of("ride-msg-9"), bRuns, "group b ran the message once");
        String deadB = broker.queue("topic.rides.b.dead-letter");
        if (shape.queueType == QueueType.QUORUM) {
            // A quorum group queue names its dead-letter queue as its delivery limit's target, so it exists at once.
            assertEquals(0, broker.countByGet(deadB), "nothing dead-lettered for group b");
        } else {
            assertTrue(!exists(deadB), "no dead-letter queue for group b: a classic group creates it on first use");
        }
    }

    @Test
    void givenAFanOutSubscriberThatAlwaysFails_thenItsDeadLettersGoToADurableQueueNamedAfterItsConsumerId()
            throws Exception {
        // Also: a body that is not a topic message at all (not even UTF-8) is dead-lettered at once, byte for byte.
        List<Integer> runs = new CopyOnWriteArrayList<>();
        Worker w = broker.own(broker.worker("fan").maxDeliveries(1).build());
        w.subscribe(Subscription.fanOut("tolls"), Ride.class, (ctx, ride) -> {
            runs.add(ctx.deliveryCount());
            throw new IllegalStateException("toll down");
        });
        w.start();
        String fanOutHead = broker.prefix + ".topic.tolls.fanout.";
        // Bound (not only declared) before anything is published: a fan-out queue gets no earlier messages.
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> {
            for (JsonNode b : broker.get(
                    "/api/exchanges/%2F/" + RabbitMqTestBroker.enc(broker.prefix + ".topics") + "/bindings/source")) {
                if (b.get("destination").asText().startsWith(fanOutHead)) {
                    return true;
                }
            }
            return false;
        });
        byte[] garbage = {(byte) 0xff, (byte) 0xfe, 0, 42, (byte) 0x80};
        Channel ch = broker.channel();
        ch.basicPublish(
                broker.prefix + ".topics",
                "tolls",
                new AMQP.BasicProperties.Builder()
                        .deliveryMode(2)
                        .messageId("garbage-1")
                        .build(),
                garbage);
        ch.close();
        String id = w.publish("tolls", new Ride("t1"));

        String dead = broker.queue("topic.tolls.fanout." + broker.prefix + "-fan.dead-letter");
        await().atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() -> broker.ready(dead) == 2 && w.inFlight() == 0);
        assertEquals(List.of(1, 2), runs, "maxDeliveries 1: two deliveries, then dead-lettered");
        // The two dead letters come from two deliveries handled concurrently, so their order in the queue is not
        // promised: each is picked out by its message id.
        Channel get = broker.channel();
        Map<String, GetResponse> byId = new HashMap<>();
        for (int i = 0; i < 2; i++) {
            GetResponse r = get.basicGet(dead, true);
            assertNotNull(r, "dead letter " + (i + 1) + " of 2");
            byId.put(r.getProps().getMessageId(), r);
        }
        get.close();
        assertEquals(Set.of("garbage-1", id), byId.keySet(), "the message ids of the two dead letters");
        GetResponse unreadable = byId.get("garbage-1");
        GetResponse copy = byId.get(id);
        assertArrayEquals(garbage, unreadable.getBody(), "the unreadable body, byte for byte");
        assertEquals("1", header(unreadable, TopicDeadLetters.DELIVERY_COUNT), "dropped at its first delivery");
        assertTrue(!header(unreadable, TopicDeadLetters.ERROR).isEmpty());
        assertTrue(header(copy, TopicDeadLetters.ERROR).contains("toll down"), header(copy, TopicDeadLetters.ERROR));
        w.close();
        assertTrue(exists(dead), "the fan-out subscriber's dead letters outlive its temporary queue");
    }

    private List<String> queuesStartingWith(String head) throws Exception {
        List<String> out = new java.util.ArrayList<>();
        for (JsonNode q : broker.get("/api/queues/%2F?columns=name")) {
            if (q.get("name").asText().startsWith(head)) {
                out.add(q.get("name").asText());
            }
        }
        return out;
    }

    private boolean exists(String queue) throws Exception {
        return queuesStartingWith(queue).contains(queue);
    }
}
