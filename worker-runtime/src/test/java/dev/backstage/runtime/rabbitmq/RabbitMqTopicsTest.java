package dev.backstage.runtime.rabbitmq;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.spi.Subscription;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Topics on the {@code {p}.topics} exchange through the Worker API. */
@Tag("broker")
class RabbitMqTopicsTest {
    private RabbitMqTestBroker broker;

    @AfterEach
    void cleanUp() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    record Event(String id) {}

    @ParameterizedTest
    @EnumSource(RabbitMqShape.class)
    void givenTwoFanOutSubscribers_thenEachGetsEveryMessage(RabbitMqShape shape) throws Exception {
        broker = new RabbitMqTestBroker(shape);
        List<String> a = new CopyOnWriteArrayList<>();
        List<String> b = new CopyOnWriteArrayList<>();
        Worker workerA = broker.own(broker.worker("a").build());
        workerA.subscribe(Subscription.fanOut("orders"), Event.class, (ctx, e) -> a.add(e.id()));
        workerA.start();
        Worker workerB = broker.own(broker.worker("b").build());
        workerB.subscribe(Subscription.fanOut("orders"), Event.class, (ctx, e) -> b.add(e.id()));
        workerB.start();

        workerA.publish("orders", new Event("e-1"));
        workerA.publish("orders", new Event("e-2"));
        workerA.publish("other-topic", new Event("not for them"));

        await().atMost(Duration.ofSeconds(20)).until(() -> a.size() == 2 && b.size() == 2);
        // Handlers run concurrently, so compare contents, not order; the size check rules out duplicates.
        assertEquals(java.util.Set.of("e-1", "e-2"), new HashSet<>(a));
        assertEquals(java.util.Set.of("e-1", "e-2"), new HashSet<>(b));
    }

    @ParameterizedTest
    @EnumSource(RabbitMqShape.class)
    void givenTwoMembersOfANamedGroup_thenTheyShareTheMessagesWithoutDuplicates(RabbitMqShape shape) throws Exception {
        broker = new RabbitMqTestBroker(shape);
        List<String> handled = new CopyOnWriteArrayList<>();
        for (String role : List.of("a", "b")) {
            Worker worker = broker.own(broker.worker(role).build());
            worker.subscribe(Subscription.group("orders", "billing"), Event.class, (ctx, e) -> handled.add(e.id()));
            worker.start();
        }
        RabbitMqProvider publisher = broker.provider("pub");
        for (int i = 0; i < 20; i++) {
            publisher.topics().orElseThrow().publish("orders", "{\"id\":\"e-" + i + "\"}");
        }

        await().atMost(Duration.ofSeconds(20)).until(() -> handled.size() >= 20);
        assertEquals(20, new HashSet<>(handled).size());
        assertEquals(20, handled.size(), "each message handled once across the group");
        assertTrue(broker.ready(broker.queue("topic.orders.billing")) == 0);
    }

    @ParameterizedTest
    @EnumSource(RabbitMqShape.class)
    void givenAFailingTopicHandler_thenTheMessageIsRedeliveredUpToMaxDeliveriesAndThenDeadLettered(RabbitMqShape shape)
            throws Exception {
        broker = new RabbitMqTestBroker(shape);
        List<Integer> counts = new CopyOnWriteArrayList<>();
        Worker worker = broker.own(broker.worker("w").maxDeliveries(3).build());
        worker.subscribe(Subscription.group("alerts", "pager"), Event.class, (ctx, e) -> {
            counts.add(ctx.deliveryCount());
            throw new IllegalStateException("pager down");
        });
        worker.start();
        worker.publish("alerts", new Event("a-1"));

        // The jobs' retry rule (a failure at deliveryCount > max is final): deliveries 1..4, then dead-lettered.
        await().atMost(Duration.ofSeconds(20)).until(() -> counts.size() == 4);
        assertEquals(List.of(1, 2, 3, 4), counts);
        await().atMost(Duration.ofSeconds(60)).until(() -> worker.inFlight() == 0);
        worker.close();
        assertEquals(
                0, broker.ready(broker.queue("topic.alerts.pager")), "gone from the group after the fourth delivery");
        assertEquals(
                1, broker.ready(broker.queue("topic.alerts.pager.dead-letter")), "kept in the group's dead letters");
    }
}
