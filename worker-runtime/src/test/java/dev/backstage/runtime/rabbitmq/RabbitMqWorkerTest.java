package dev.backstage.runtime.rabbitmq;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.backstage.runtime.api.EnqueueResult;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.UnknownTaskPolicy;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.spi.DeadLetterEntry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Jobs on a real RabbitMQ through the public Worker API, so the core's settlement runs for real. */
@Tag("broker")
class RabbitMqWorkerTest {
    private RabbitMqTestBroker broker;

    record Order(String id, int amount) {}

    @AfterEach
    void cleanUp() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    @ParameterizedTest
    @EnumSource(RabbitMqShape.class)
    void givenAnEnqueuedJob_whenAWorkerRuns_thenTheHandlerGetsThePayloadAndTheQueueEndsEmpty(RabbitMqShape shape)
            throws Exception {
        broker = new RabbitMqTestBroker(shape);
        List<Order> seen = new CopyOnWriteArrayList<>();
        Map<String, String> jobIds = new ConcurrentHashMap<>();
        Worker worker = broker.own(broker.worker("w").build());
        worker.register("order.process", Order.class, (ctx, order) -> {
            seen.add(order);
            jobIds.put(order.id(), ctx.jobId());
            assertEquals(1, ctx.deliveryCount());
            return Next.done();
        });
        worker.start();
        EnqueueResult result = worker.enqueue("order.process", new Order("o-1", 42));

        await().atMost(Duration.ofSeconds(20)).until(() -> seen.size() == 1);
        assertEquals(new Order("o-1", 42), seen.get(0));
        assertEquals(result.id(), jobIds.get("o-1"), "the enqueue id is the job id the handler sees");
        await().atMost(Duration.ofSeconds(60)).until(() -> worker.inFlight() == 0);
        worker.close();
        assertEquals(0, broker.ready(broker.queue("default")), "acked, not requeued at close");
    }

    @ParameterizedTest
    @EnumSource(RabbitMqShape.class)
    void givenAHandlerThatAlwaysFails_whenRetriesRunOut_thenTheJobIsInTheDeadLetterQueueWithTheError(
            RabbitMqShape shape) throws Exception {
        broker = new RabbitMqTestBroker(shape);
        AtomicInteger runs = new AtomicInteger();
        List<Integer> counts = new CopyOnWriteArrayList<>();
        List<String> ids = new CopyOnWriteArrayList<>();
        Worker worker = broker.own(broker.worker("w").maxDeliveries(2).build());
        worker.register("flaky", Order.class, (ctx, order) -> {
            runs.incrementAndGet();
            counts.add(ctx.deliveryCount());
            ids.add(ctx.jobId());
            throw new IllegalStateException("boom " + ctx.deliveryCount());
        });
        worker.start();
        EnqueueResult result = worker.enqueue("flaky", new Order("o-2", 1));

        RabbitMqProvider admin = broker.provider("admin");
        await().atMost(Duration.ofSeconds(30)).until(() -> admin.deadLetters().count("default") == 1);
        assertEquals(3, runs.get(), "max 2 retries: runs at delivery 1, 2 and 3, then dead-letter");
        assertEquals(List.of(1, 2, 3), counts);
        assertEquals(List.of(result.id(), result.id(), result.id()), ids, "the job id is stable across retries");
        DeadLetterEntry entry = admin.deadLetters().list("default", 10).get(0);
        assertTrue(entry.error().contains("boom 3"), entry.error());
        assertEquals(3, entry.deliveryCount());
        assertEquals("flaky", entry.taskName());
        assertEquals(result.id(), entry.id());
        assertEquals("{\"id\":\"o-2\",\"amount\":1}", entry.payloadJson());
        assertEquals(0, broker.ready(broker.queue("default")));
    }

    @ParameterizedTest
    @EnumSource(RabbitMqShape.class)
    void givenAHandlerReturningANextTask_thenTheNextTaskRunsWithItsPayload(RabbitMqShape shape) throws Exception {
        broker = new RabbitMqTestBroker(shape);
        List<String> receipts = new CopyOnWriteArrayList<>();
        Worker worker = broker.own(broker.worker("w").build());
        worker.register(
                "order.process", Order.class, (ctx, order) -> Next.task("receipt.send", "receipt-" + order.id()));
        worker.register("receipt.send", String.class, (ctx, receipt) -> {
            receipts.add(receipt);
            return Next.done();
        });
        worker.start();
        worker.enqueue("order.process", new Order("o-3", 7));

        await().atMost(Duration.ofSeconds(20)).until(() -> receipts.size() == 1);
        assertEquals("receipt-o-3", receipts.get(0));
    }

    @ParameterizedTest
    @EnumSource(RabbitMqShape.class)
    void givenAHandlerReturningADelayedNextTask_thenItRunsAfterTheDelayThroughTheBrokersDelayPath(RabbitMqShape shape)
            throws Exception {
        broker = new RabbitMqTestBroker(shape);
        List<Long> ranAt = new CopyOnWriteArrayList<>();
        Worker worker = broker.own(broker.worker("w").build());
        long[] chainedAt = new long[1];
        worker.register("first", String.class, (ctx, s) -> {
            chainedAt[0] = System.currentTimeMillis();
            return Next.task("second", s).after(Duration.ofMillis(800));
        });
        worker.register("second", String.class, (ctx, s) -> {
            ranAt.add(System.currentTimeMillis());
            return Next.done();
        });
        worker.start();
        worker.enqueue("first", "x");

        await().atMost(Duration.ofSeconds(20)).until(() -> ranAt.size() == 1);
        long waited = ranAt.get(0) - chainedAt[0];
        assertTrue(waited >= 800, "never early: waited " + waited + " ms");
    }

    @ParameterizedTest
    @EnumSource(RabbitMqShape.class)
    void givenABodyThatIsNotJson_thenItIsDeadLetteredWithTheReasonAndNotRetried(RabbitMqShape shape) throws Exception {
        broker = new RabbitMqTestBroker(shape);
        AtomicInteger runs = new AtomicInteger();
        Worker worker = broker.own(broker.worker("w").build());
        worker.register("any", String.class, (ctx, s) -> {
            runs.incrementAndGet();
            return Next.done();
        });
        worker.start();
        broker.publishRaw(broker.queue("default"), "this is not json");
        broker.publishRaw(broker.queue("default"), "{\"payload\":{\"a\":1}}");

        RabbitMqProvider admin = broker.provider("admin");
        await().atMost(Duration.ofSeconds(20)).until(() -> admin.deadLetters().count("default") == 2);
        List<String> dead = broker.drain(broker.queue("default.dead-letter"));
        JsonNode notJson = broker.json(
                dead.stream().filter(b -> b.contains("rawBody")).findFirst().orElseThrow());
        assertTrue(notJson.get("error").asText().contains("not JSON"), notJson.toString());
        assertEquals("this is not json", notJson.get("rawBody").asText());
        JsonNode noTask = broker.json(
                dead.stream().filter(b -> !b.contains("rawBody")).findFirst().orElseThrow());
        assertTrue(noTask.get("error").asText().contains("no taskName"), noTask.toString());
        assertEquals(1, noTask.get("payload").get("a").asInt(), "the original body is kept");
        assertEquals(0, runs.get());
        assertEquals(0, broker.ready(broker.queue("default")));
    }

    @ParameterizedTest
    @EnumSource(RabbitMqShape.class)
    void givenAJobForAnUnknownTask_thenItIsDeadLetteredNamingTheTask(RabbitMqShape shape) throws Exception {
        broker = new RabbitMqTestBroker(shape);
        Worker worker = broker.own(broker.worker("w").build());
        worker.register("known", String.class, (ctx, s) -> Next.done());
        worker.start();
        worker.enqueue("nobody.handles.this", "x");

        RabbitMqProvider admin = broker.provider("admin");
        await().atMost(Duration.ofSeconds(20)).until(() -> admin.deadLetters().count("default") == 1);
        assertEquals(
                "unknown task 'nobody.handles.this'",
                admin.deadLetters().list("default", 1).get(0).error());
    }

    @ParameterizedTest
    @EnumSource(RabbitMqShape.class)
    void givenAWorkerThatLeavesUnknownTasksPending_thenItHandsThemBackWithoutSpinning_andTheOwnerRunsThem(
            RabbitMqShape shape) throws Exception {
        broker = new RabbitMqTestBroker(shape);
        Worker bystander = broker.own(
                broker.worker("a").unknownTasks(UnknownTaskPolicy.LEAVE_PENDING).build());
        bystander.register("not.this.one", String.class, (ctx, s) -> Next.done());
        bystander.start();
        bystander.enqueue("owned.elsewhere", "x");

        await().atMost(Duration.ofSeconds(60)).until(() -> bystander.totals().deliveries() >= 1);
        // Handed back after a pause each time, so only a few redeliveries fit in three seconds (not thousands).
        await().during(Duration.ofSeconds(3))
                .atMost(Duration.ofSeconds(5))
                .until(() -> bystander.totals().deliveries() <= 6);

        List<Integer> ownerSaw = new CopyOnWriteArrayList<>();
        Worker owner = broker.own(broker.worker("b").build());
        owner.register("owned.elsewhere", String.class, (ctx, s) -> {
            ownerSaw.add(ctx.deliveryCount());
            return Next.done();
        });
        owner.start();
        await().atMost(Duration.ofSeconds(20)).until(() -> ownerSaw.size() == 1);
        assertEquals(0, broker.provider("admin").deadLetters().count("default"), "never dead-lettered");
    }

    @ParameterizedTest
    @EnumSource(RabbitMqShape.class)
    void givenASeedStyleBodyWithoutJobId_thenRetriesKeepTheIdOfItsFirstDelivery(RabbitMqShape shape) throws Exception {
        broker = new RabbitMqTestBroker(shape);
        List<String> ids = new CopyOnWriteArrayList<>();
        List<Integer> counts = new CopyOnWriteArrayList<>();
        Worker worker = broker.own(broker.worker("w").build());
        worker.register("seed.task", JsonNode.class, (ctx, payload) -> {
            ids.add(ctx.jobId());
            counts.add(ctx.deliveryCount());
            if (ctx.deliveryCount() == 1) {
                throw new IllegalStateException("first run fails");
            }
            return Next.done();
        });
        worker.start();
        broker.publishRaw(
                broker.queue("default"),
                "{\"queue\":\"default\",\"taskName\":\"seed.task\","
                        + "\"payload\":{\"x\":1},\"enqueuedAt\":1718900000000,\"meta\":{\"Attempts\":3},\"deliveryCount\":1}");

        await().atMost(Duration.ofSeconds(20)).until(() -> counts.size() == 2);
        assertEquals(List.of(1, 2), counts);
        assertEquals(ids.get(0), ids.get(1), "the retry copy carries the first delivery's id as jobId");
    }

    @ParameterizedTest
    @EnumSource(RabbitMqShape.class)
    void givenAProducersMessageId_whenTheJobIsDeadLetteredAndRedriven_thenThatIdStaysItsJobId(RabbitMqShape shape)
            throws Exception {
        broker = new RabbitMqTestBroker(shape);
        List<String> ids = new CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicBoolean fixed = new java.util.concurrent.atomic.AtomicBoolean();
        Worker worker = broker.own(broker.worker("w").maxDeliveries(1).build());
        worker.register("seed.task", JsonNode.class, (ctx, payload) -> {
            ids.add(ctx.jobId());
            if (!fixed.get()) {
                throw new IllegalStateException("not yet");
            }
            return Next.done();
        });
        worker.start();
        com.rabbitmq.client.Channel channel = broker.channel();
        channel.confirmSelect();
        channel.basicPublish(
                "",
                broker.queue("default"),
                new com.rabbitmq.client.AMQP.BasicProperties.Builder()
                        .deliveryMode(2)
                        .messageId("producer-42")
                        .build(),
                ("{\"queue\":\"default\",\"taskName\":\"seed.task\","
                                + "\"payload\":{\"x\":1},\"enqueuedAt\":1718900000000,\"deliveryCount\":1}")
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8));
        channel.waitForConfirmsOrDie(5_000);
        channel.close();

        RabbitMqProvider admin = broker.provider("admin");
        await().atMost(Duration.ofSeconds(20)).until(() -> admin.deadLetters().count("default") == 1);
        fixed.set(true);
        assertEquals(1, admin.deadLetters().redrive("default", 10));
        await().atMost(Duration.ofSeconds(20)).until(() -> ids.size() == 3);
        assertEquals(java.util.Collections.nCopies(3, "producer-42"), ids, "runs 1 and 2, then the redriven run");
    }
}
