package dev.backstage.runtime.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.EnqueueResult;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.TaskOptions;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.spi.Backoff;
import dev.backstage.testsupport.SharedBroker;
import dev.backstage.testsupport.UsesSharedBrokers;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The delivery model on the real local Redis, in each connection mode: one node, the 6-node cluster (per-queue hash
 * tags) and the Sentinel group; the assertions read the keys of the mode's own layout.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
@UsesSharedBrokers({SharedBroker.REDIS_CLUSTER, SharedBroker.REDIS_SENTINEL})
@Tag("broker")
class RedisWorkerTest {
    record Order(String orderId) {}

    record Receipt(String orderId) {}

    private final RedisTestSupport redis;

    RedisWorkerTest(RedisMode mode) {
        this.redis = new RedisTestSupport(mode);
    }

    private final List<Worker> workers = new CopyOnWriteArrayList<>();

    @AfterEach
    void tearDown() {
        workers.forEach(Worker::close);
        redis.close();
    }

    private Worker.Builder builder() {
        return Worker.builder()
                .provider(redis.provider())
                .queues("default")
                .concurrency(8)
                .shutdownGrace(Duration.ofSeconds(5))
                .backoff(Backoff.fixed(Duration.ofMillis(50)));
    }

    private Worker track(Worker worker) {
        workers.add(worker);
        return worker;
    }

    private String stream() {
        return redis.keys().stream("default");
    }

    private long pending(String stream) {
        return redis.redis().xpending(stream, "backstage-workers").getCount();
    }

    @Test
    void givenHandlersThatBlockOnFutures_thenNoMoreThanConcurrencyRunAtOnce_andAllComplete() throws Exception {
        // The handler pool is a fork/join pool: a handler blocking in join() must not make it add threads.
        Worker worker = track(builder().concurrency(3).prefetch(20).build());
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(12);
        worker.register("processOrder", Order.class, (ctx, order) -> {
            int now = running.incrementAndGet();
            most.accumulateAndGet(now, Math::max);
            java.util.concurrent.CompletableFuture.runAsync(
                            () -> {}, java.util.concurrent.CompletableFuture.delayedExecutor(50, TimeUnit.MILLISECONDS))
                    .join();
            running.decrementAndGet();
            done.countDown();
            return Next.done();
        });
        worker.start();
        for (int i = 0; i < 12; i++) {
            worker.enqueue("processOrder", new Order("o-" + i));
        }
        assertTrue(done.await(20, TimeUnit.SECONDS), "all 12 jobs ran");
        assertEquals(3, most.get(), "exactly concurrency handlers ran at once");
    }

    @Test
    void givenAChain_whenTheFirstTaskSucceeds_thenTheNextIsEnqueuedBeforeTheAck() {
        Worker worker = track(builder().build());
        List<String> pendingWhenReceiptRan = new CopyOnWriteArrayList<>();
        worker.register(
                "processOrder", Order.class, (ctx, order) -> Next.task("sendReceipt", new Receipt(order.orderId())));
        worker.register("sendReceipt", Receipt.class, (ctx, receipt) -> {
            // The processOrder entry must still be pending (not yet acked) or acked only after this entry
            // exists: we record the stream length, which includes this entry, proving it was written first.
            pendingWhenReceiptRan.add(receipt.orderId());
            return Next.done();
        });
        worker.start();
        EnqueueResult result = worker.enqueue("processOrder", new Order("o-1"));

        await().atMost(Duration.ofSeconds(60)).until(() -> pendingWhenReceiptRan.contains("o-1"));
        await().atMost(Duration.ofSeconds(60)).until(() -> pending(stream()) == 0);
        List<StreamMessage<String, String>> entries = redis.redis().xrange(stream(), Range.create("-", "+"));
        assertEquals(2, entries.size());
        assertEquals(result.id(), entries.get(0).getId());
        assertEquals("sendReceipt", entries.get(1).getBody().get("taskName"));
        assertEquals("{\"orderId\":\"o-1\"}", entries.get(1).getBody().get("payload"));
    }

    @Test
    void givenTheChainHandOffFails_thenTheCurrentDeliveryIsNotAckedButRetried() {
        Worker worker = track(builder().maxDeliveries(1).build()); // no delays capability used: hand-off to a bad queue
        AtomicInteger runs = new AtomicInteger();
        worker.register("processOrder", Order.class, (ctx, order) -> {
            runs.incrementAndGet();
            return Next.task("sendReceipt", new Receipt(order.orderId())).onQueue("not a valid queue!");
        });
        worker.start();
        worker.enqueue("processOrder", new Order("o-2"));

        String dlq = redis.keys().deadLetter("default");
        await().atMost(Duration.ofSeconds(60)).until(() -> redis.redis().xlen(dlq) == 1);
        assertEquals(2, runs.get(), "ran once, retried once, then dead-lettered (max 1 retry)");
        String error = redis.redis()
                .xrange(dlq, Range.create("-", "+"))
                .get(0)
                .getBody()
                .get("error");
        assertTrue(error.contains("could not enqueue next task 'sendReceipt'"), error);
    }

    @Test
    void givenAHandlerThatAlwaysFails_thenItIsRetriedThenDeadLetteredWithTheError() {
        Worker worker = track(builder().maxDeliveries(3).build());
        List<Integer> counts = new CopyOnWriteArrayList<>();
        Set<String> jobIds = ConcurrentHashMap.newKeySet();
        worker.register("flaky", Order.class, (ctx, order) -> {
            counts.add(ctx.deliveryCount());
            jobIds.add(ctx.jobId());
            throw new IllegalStateException("payment gateway said no");
        });
        worker.start();
        EnqueueResult result = worker.enqueue("flaky", new Order("o-3"));

        String dlq = redis.keys().deadLetter("default");
        await().atMost(Duration.ofSeconds(15)).until(() -> redis.redis().xlen(dlq) == 1);
        assertEquals(List.of(1, 2, 3, 4), counts, "max 3 retries: 4 runs with counts 1..4");
        assertEquals(Set.of(result.id()), jobIds, "the job id is stable across retries");
        Map<String, String> dead =
                redis.redis().xrange(dlq, Range.create("-", "+")).get(0).getBody();
        assertEquals("flaky", dead.get("taskName"));
        assertEquals("{\"orderId\":\"o-3\"}", dead.get("payload"));
        assertEquals(result.id(), dead.get("originalId"));
        assertEquals("4", dead.get("deliveryCount"));
        assertEquals("IllegalStateException: payment gateway said no", dead.get("error"));
        assertNotNull(dead.get("deadLetteredAt"));
        await().atMost(Duration.ofSeconds(60)).until(() -> pending(stream()) == 0);
        assertEquals(0, redis.redis().exists(redis.keys().error(stream(), result.id())), "failure record removed");
    }

    @Test
    void givenAHandledFailure_thenItIsRetriedAfterItsBackoffNotAfterTheIdleThreshold() {
        // Idle threshold one hour: if the retry waited for it, this test would time out.
        Worker worker = track(Worker.builder()
                .provider(RedisProvider.connect(redis.settings().withIdleTimeout(Duration.ofHours(1))))
                .queues("default")
                .concurrency(4)
                .backoff(Backoff.fixed(Duration.ofMillis(300)))
                .build());
        List<Long> runTimes = new CopyOnWriteArrayList<>();
        worker.register("onceFails", Order.class, (ctx, order) -> {
            runTimes.add(System.nanoTime());
            if (ctx.deliveryCount() == 1) {
                throw new RuntimeException("first try fails");
            }
            return Next.done();
        });
        worker.start();
        worker.enqueue("onceFails", new Order("o-4"));

        await().atMost(Duration.ofSeconds(60)).until(() -> runTimes.size() == 2);
        long gapMs = TimeUnit.NANOSECONDS.toMillis(runTimes.get(1) - runTimes.get(0));
        assertTrue(gapMs >= 300, "waited for the back-off: " + gapMs + " ms");
        await().atMost(Duration.ofSeconds(60)).until(() -> pending(stream()) == 0);
    }

    @Test
    void givenAWorkerStoppedHardMidJob_thenAnotherWorkerReclaimsAndCompletesIt() throws Exception {
        RedisProvider doomedProvider = redis.provider();
        Worker doomed = Worker.builder()
                .provider(doomedProvider)
                .queues("default")
                .consumerId("doomed")
                .concurrency(4)
                .shutdownGrace(Duration.ZERO)
                .build();
        CountDownLatch started = new CountDownLatch(3);
        CountDownLatch never = new CountDownLatch(1);
        doomed.register("work", Order.class, (ctx, order) -> {
            started.countDown();
            never.await(); // stuck until the process "dies"
            return Next.done();
        });
        doomed.start();
        for (int i = 0; i < 3; i++) {
            doomed.enqueue("work", new Order("o-" + i));
        }
        assertTrue(started.await(10, TimeUnit.SECONDS));
        doomedProvider.close(); // hard stop: connections gone, nothing acked
        assertEquals(3, pending(stream()));

        Set<String> completed = ConcurrentHashMap.newKeySet();
        Worker rescuer = track(builder().consumerId("rescuer").build());
        rescuer.register("work", Order.class, (ctx, order) -> {
            assertTrue(ctx.deliveryCount() >= 2, "a reclaimed entry counts its earlier delivery");
            completed.add(order.orderId());
            return Next.done();
        });
        rescuer.start();

        await().atMost(Duration.ofSeconds(20)).until(() -> completed.size() == 3);
        await().atMost(Duration.ofSeconds(60)).until(() -> pending(stream()) == 0);
        assertEquals(Set.of("o-0", "o-1", "o-2"), completed);
        never.countDown();
        doomed.close(); // stops the dead worker's loops (its connections are already gone)
    }

    @Test
    void givenAJavaWorkerThatCrashed_thenItsEntriesAreTakenWhenItsHeartbeatStopsNotAfterTheIdleThreshold()
            throws Exception {
        // Idle threshold one hour, far beyond the test's waits: only the missing heartbeat can explain a rescue.
        RedisSettings slowIdle =
                redis.settings().withIdleTimeout(Duration.ofHours(1)).withDeadWorkerTimeout(Duration.ofSeconds(1));
        RedisProvider crashing = RedisProvider.connect(slowIdle);
        Worker victim = Worker.builder()
                .provider(crashing)
                .queues("default")
                .consumerId("victim")
                .shutdownGrace(Duration.ZERO)
                .build();
        CountDownLatch started = new CountDownLatch(2);
        victim.register("work", Order.class, (ctx, order) -> {
            started.countDown();
            new CountDownLatch(1).await();
            return Next.done();
        });
        victim.start();
        victim.enqueue("work", new Order("a"));
        victim.enqueue("work", new Order("b"));
        assertTrue(started.await(10, TimeUnit.SECONDS));
        crashing.close(); // the process "dies": no more heartbeats, nothing acked

        Set<String> completed = ConcurrentHashMap.newKeySet();
        Worker rescuer = track(Worker.builder()
                .provider(RedisProvider.connect(slowIdle))
                .queues("default")
                .consumerId("rescuer")
                .build());
        rescuer.register("work", Order.class, (ctx, order) -> {
            completed.add(order.orderId());
            return Next.done();
        });
        rescuer.start();
        await().atMost(Duration.ofSeconds(60)).until(() -> completed.size() == 2);
        await().atMost(Duration.ofSeconds(60)).until(() -> pending(stream()) == 0);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> !redis.redis().hexists(redis.keys().workers("backstage-workers"), "victim"));
        victim.close();
    }

    @Test
    void givenADelayedJob_thenItRunsNoEarlierThanItsDueTimeAndLeavesTheSchedule() {
        Worker worker = track(builder().build());
        List<Long> ranAt = new CopyOnWriteArrayList<>();
        worker.register("later", Order.class, (ctx, order) -> {
            ranAt.add(System.currentTimeMillis());
            return Next.done();
        });
        worker.start();
        EnqueueResult result = worker.schedule("later", new Order("o-5"), Duration.ofMillis(1500));
        assertTrue(result.id().startsWith("scheduled:"), result.id());
        long due = result.runAt().toEpochMilli();

        await().atMost(Duration.ofSeconds(60)).until(() -> !ranAt.isEmpty());
        long lateness = ranAt.get(0) - due;
        assertTrue(lateness >= 0, "never early: " + lateness + " ms");
        System.out.printf("scheduled job promoted %d ms after due%n", lateness);
        assertEquals(0, redis.redis().zcard(redis.keys().scheduled("default")));
    }

    @Test
    void givenADedupeKey_thenASecondEnqueueWithinTheTtlIsSuppressed() {
        Worker worker = track(builder().build());
        EnqueueOptions once = EnqueueOptions.defaults().dedupe("order-42", Duration.ofSeconds(30));
        EnqueueResult first = worker.enqueue("processOrder", new Order("o-42"), once);
        EnqueueResult second = worker.enqueue("processOrder", new Order("o-42"), once);

        assertFalse(first.deduplicated());
        assertTrue(second.deduplicated());
        assertEquals(1, redis.redis().xlen(stream()));
        long ttl = redis.redis().ttl(redis.keys().dedupe("order-42"));
        assertTrue(ttl > 0 && ttl <= 30, "ttl " + ttl);
    }

    @Test
    void givenShutdown_thenInFlightWorkFinishesBeforeCloseReturnsAndTheRestStaysPending() throws Exception {
        Worker worker = Worker.builder()
                .provider(redis.provider())
                .queues("default")
                .concurrency(2)
                .prefetch(2)
                .shutdownGrace(Duration.ofSeconds(60))
                .build();
        CountDownLatch twoRunning = new CountDownLatch(2);
        Set<String> finished = ConcurrentHashMap.newKeySet();
        worker.register("slow", Order.class, (ctx, order) -> {
            twoRunning.countDown();
            Thread.sleep(700);
            finished.add(order.orderId());
            return Next.done();
        });
        for (int i = 0; i < 6; i++) {
            worker.enqueue("slow", new Order("s-" + i));
        }
        worker.start();
        assertTrue(twoRunning.await(10, TimeUnit.SECONDS));
        worker.close();

        assertTrue(finished.size() >= 2, "in-flight work finished: " + finished);
        assertEquals(finished.size(), countAcked(), "every finished job was acked before close returned");
        assertEquals(0, pending(stream()), "nothing is left pending-but-finished");
        assertTrue(finished.size() < 6, "the rest was not taken once stopping began: " + finished);
    }

    private long countAcked() {
        // entries delivered to the group = entries-read; none pending => all delivered ones were acked
        var group = StreamInfo.groups(redis.redis().xinfoGroups(stream())).get(0);
        return StreamInfo.asLong(group.get("entries-read")) - StreamInfo.asLong(group.get("pending"));
    }

    @Test
    void givenAShutdownGraceThatElapses_thenTheStuckDeliveryStaysPendingForRedelivery() throws Exception {
        Worker worker = Worker.builder()
                .provider(redis.provider())
                .queues("default")
                .concurrency(1)
                .shutdownGrace(Duration.ofMillis(300))
                .build();
        CountDownLatch running = new CountDownLatch(1);
        worker.register("stuck", Order.class, (ctx, order) -> {
            running.countDown();
            Thread.sleep(30_000);
            return Next.done();
        });
        worker.start();
        worker.enqueue("stuck", new Order("x"));
        assertTrue(running.await(10, TimeUnit.SECONDS));
        worker.close();
        assertEquals(1, pending(stream()), "left pending for another worker");
    }

    @Test
    void givenAnUnknownTask_thenItIsDeadLetteredWithTheReasonNotDropped() {
        Worker worker = track(builder().build());
        worker.register("known", Order.class, (ctx, order) -> Next.done());
        worker.start();
        worker.enqueue("nobodyHandlesThis", new Order("o-6"));

        String dlq = redis.keys().deadLetter("default");
        await().atMost(Duration.ofSeconds(60)).until(() -> redis.redis().xlen(dlq) == 1);
        assertEquals(
                "unknown task 'nobodyHandlesThis'",
                redis.redis()
                        .xrange(dlq, Range.create("-", "+"))
                        .get(0)
                        .getBody()
                        .get("error"));
    }

    @Test
    void givenAMalformedPayload_thenItIsDeadLetteredAtOnceWithTheReason() {
        Worker worker = track(builder().build());
        AtomicInteger runs = new AtomicInteger();
        worker.register("processOrder", Order.class, (ctx, order) -> {
            runs.incrementAndGet();
            return Next.done();
        });
        worker.start();
        redis.redis().xadd(stream(), "taskName", "processOrder", "payload", "{not json", "enqueuedAt", "1718900000000");
        redis.redis().xadd(stream(), "taskName", "processOrder", "payload", "[1,2]", "enqueuedAt", "1718900000000");

        String dlq = redis.keys().deadLetter("default");
        await().atMost(Duration.ofSeconds(60)).until(() -> redis.redis().xlen(dlq) == 2);
        List<StreamMessage<String, String>> dead = redis.redis().xrange(dlq, Range.create("-", "+"));
        Map<String, String> notJson = dead.stream()
                .filter(m -> m.getBody().get("payload").equals("{not json"))
                .findFirst()
                .orElseThrow()
                .getBody();
        Map<String, String> wrongShape = dead.stream()
                .filter(m -> m.getBody().get("payload").equals("[1,2]"))
                .findFirst()
                .orElseThrow()
                .getBody();
        assertTrue(notJson.get("error").startsWith("payload is not valid JSON"), notJson.get("error"));
        assertEquals("1", notJson.get("deliveryCount"), "never retried");
        assertTrue(wrongShape.get("error").contains("cannot be read as Order"), wrongShape.get("error"));
        assertEquals(0, runs.get());
    }

    @Test
    void givenAHardTimeout_thenTheHandlerIsInterruptedAndTheDeliveryFails() {
        Worker worker = track(builder().maxDeliveries(1).build());
        AtomicInteger interrupted = new AtomicInteger();
        worker.register(
                "hangs", Order.class, TaskOptions.defaults().withHardTimeout(Duration.ofMillis(200)), (ctx, order) -> {
                    try {
                        Thread.sleep(20_000);
                    } catch (InterruptedException e) {
                        interrupted.incrementAndGet();
                        throw e;
                    }
                    return Next.done();
                });
        worker.start();
        worker.enqueue("hangs", new Order("o-7"));

        String dlq = redis.keys().deadLetter("default");
        await().atMost(Duration.ofSeconds(60)).until(() -> redis.redis().xlen(dlq) == 1);
        assertTrue(redis.redis()
                .xrange(dlq, Range.create("-", "+"))
                .get(0)
                .getBody()
                .get("error")
                .startsWith("hard timeout"));
        await().atMost(Duration.ofSeconds(60)).until(() -> interrupted.get() == 2);
    }

    @Test
    void givenDeadLetters_whenRedriven_thenEveryEntryReturnsToItsQueueAndRuns() {
        RedisProvider provider = redis.provider();
        Worker failing = Worker.builder()
                .provider(provider)
                .queues("default")
                .maxDeliveries(1)
                .backoff(Backoff.fixed(Duration.ofMillis(10)))
                .build();
        failing.register("fix-me", JsonNode.class, (ctx, payload) -> {
            throw new RuntimeException("bug");
        });
        failing.start();
        for (int i = 0; i < 5; i++) {
            failing.enqueue("fix-me", Map.of("n", i), EnqueueOptions.defaults().attempts(1));
        }
        String dlq = redis.keys().deadLetter("default");
        await().atMost(Duration.ofSeconds(15)).until(() -> redis.redis().xlen(dlq) == 5);
        failing.close();

        try (RedisProvider cli = redis.provider()) {
            assertEquals(5, cli.deadLetters().list("default", 100).size());
            assertEquals(5, cli.deadLetters().redrive("default", 1000));
        }
        assertEquals(0, redis.redis().xlen(dlq));

        Set<Integer> fixed = ConcurrentHashMap.newKeySet();
        Worker healed = track(builder().build());
        healed.register("fix-me", JsonNode.class, (ctx, payload) -> {
            fixed.add(payload.get("n").asInt());
            return Next.done();
        });
        healed.start();
        await().atMost(Duration.ofSeconds(60)).until(() -> fixed.size() == 5);
        List<StreamMessage<String, String>> redriven =
                redis.redis().xrange(stream(), Range.create("-", "+"), Limit.from(100));
        assertTrue(
                redriven.stream()
                        .skip(5)
                        .allMatch(m -> "1".equals(m.getBody().get("attempts"))
                                && !m.getBody().containsKey("error")),
                "original job fields restored, dead-letter fields dropped");
    }
}
