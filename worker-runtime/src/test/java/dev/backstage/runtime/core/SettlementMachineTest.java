package dev.backstage.runtime.core;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.TaskOptions;
import dev.backstage.runtime.api.TopicHandler;
import dev.backstage.runtime.api.UnknownTaskPolicy;
import dev.backstage.runtime.spi.Backoff;
import dev.backstage.runtime.spi.Delivery;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.TopicDelivery;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The one settlement machine, driven through both of its users — {@link DeliveryProcessor} (jobs) and
 * {@link TopicProcessor} (topic messages) — with deliveries held in memory that record how they were settled. Each
 * case checks the settlement the delivery got and that its slot in the {@link InFlightGate} was freed exactly once.
 */
class SettlementMachineTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    /** A topic payload type. */
    record Ride(int id) {}

    private final InFlightGate gate = new InFlightGate(16);
    private final WorkerMetrics metrics = new WorkerMetrics(new SimpleMeterRegistry(), gate::inFlight);
    private final ExecutorService handlers = Executors.newFixedThreadPool(4);
    private final ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor();
    private final ExecutorService timeoutSettlement = Executors.newCachedThreadPool();
    private final RetryPolicy policy = new RetryPolicy(2, Backoff.fixed(Duration.ofMillis(250)));
    private final TaskRegistry registry = new TaskRegistry();
    /** What the deliveries were asked to do, e.g. {@code "j1 retry 250 hard timeout: ..."}. */
    private final BlockingQueue<String> settled = new LinkedBlockingQueue<>();

    @AfterEach
    void stop() {
        handlers.shutdownNow();
        watchdog.shutdownNow();
        timeoutSettlement.shutdownNow();
    }

    private DeliveryProcessor jobs() {
        return new DeliveryProcessor(
                registry,
                policy,
                PayloadCodec.defaults(),
                null,
                gate,
                handlers,
                watchdog,
                timeoutSettlement,
                metrics,
                UnknownTaskPolicy.DEAD_LETTER,
                null);
    }

    private <T> TopicProcessor<T> topic(Class<T> type, TopicHandler<T> handler, Duration hardTimeout) {
        return new TopicProcessor<>(
                "topic",
                type,
                handler,
                PayloadCodec.defaults(),
                gate,
                handlers,
                policy,
                watchdog,
                timeoutSettlement,
                hardTimeout,
                metrics);
    }

    private String next() throws InterruptedException {
        String s = settled.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertTrue(s != null, "a settlement within " + WAIT);
        return s;
    }

    private void awaitAllSlotsFree() {
        await().atMost(WAIT).until(() -> gate.inFlight() == 0);
    }

    @Test
    void givenAJobPastItsHardTimeout_whenItsHandlerReturnsLate_thenItIsRetriedOnceAndNeverAcked() throws Exception {
        CountDownLatch interrupted = new CountDownLatch(1);
        CountDownLatch returned = new CountDownLatch(1);
        registry.register(
                "slow",
                String.class,
                TaskOptions.defaults().withHardTimeout(Duration.ofMillis(200)),
                (context, payload) -> {
                    try {
                        new CountDownLatch(1).await(); // until interrupted
                    } catch (InterruptedException e) {
                        if (context.isCancelled()) {
                            interrupted.countDown();
                        }
                    }
                    returned.countDown();
                    return Next.done(); // too late: the timeout settled it
                });
        jobs().accept(new JobDelivery("j1", "slow", "\"x\"", 1));
        String retry = next();
        assertTrue(retry.startsWith("j1 retry 250 hard timeout: handler ran longer than 200 ms"), retry);
        assertTrue(interrupted.await(WAIT.toSeconds(), TimeUnit.SECONDS), "the handler is cancelled and interrupted");
        assertTrue(returned.await(WAIT.toSeconds(), TimeUnit.SECONDS));
        awaitAllSlotsFree();
        assertNull(settled.poll(), "one settlement only: no ack after the late return");
    }

    @Test
    void givenAJobThatFailsPastItsAllowance_whenItFails_thenItIsDeadLetteredWithTheError() throws Exception {
        registry.register("boom", String.class, TaskOptions.defaults(), (context, payload) -> {
            throw new IllegalStateException("boom");
        });
        DeliveryProcessor processor = jobs();
        processor.accept(new JobDelivery("j2", "boom", "\"x\"", 2));
        assertEquals("j2 retry 250 IllegalStateException: boom", next());
        processor.accept(new JobDelivery("j3", "boom", "\"x\"", 3));
        assertEquals("j3 dead-letter IllegalStateException: boom", next());
        awaitAllSlotsFree();
    }

    @Test
    void givenAJobWhoseAckStageFails_whenSettled_thenTheSlotFreesAtOnceAndNothingIsAbandoned() throws Exception {
        registry.register("ok", String.class, TaskOptions.defaults(), (context, payload) -> Next.done());
        CompletableFuture<Void> ack = new CompletableFuture<>();
        JobDelivery delivery = new JobDelivery("j4", "ok", "\"x\"", 1);
        delivery.ackStage = ack;
        jobs().accept(delivery);
        assertEquals("j4 ack", next());
        awaitAllSlotsFree(); // acks flush in batches: the slot does not wait for the broker
        ack.completeExceptionally(new IllegalStateException("connection lost"));
        assertNull(settled.poll(), "a failed job ack is left to the broker's redelivery, not abandoned");
    }

    @Test
    void givenShutdownPastItsGrace_whenAJobStillRuns_thenItIsAbandonedOnceAndItsLateReturnSettlesNothing()
            throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        registry.register("stuck", String.class, TaskOptions.defaults(), (context, payload) -> {
            running.countDown();
            release.await(); // interrupted by the shutdown
            return Next.done();
        });
        DeliveryProcessor processor = jobs();
        processor.accept(new JobDelivery("j5", "stuck", "\"x\"", 1));
        assertTrue(running.await(WAIT.toSeconds(), TimeUnit.SECONDS));
        processor.abandonAll();
        assertEquals("j5 abandon", next());
        awaitAllSlotsFree();
        processor.abandonAll();
        assertNull(settled.poll(), "abandoned once");
        assertEquals(0, processor.running());
    }

    @Test
    void givenATopicMessageThatFailsPastItsAllowance_whenItFails_thenItIsDroppedWithTheCountAndTheError()
            throws Exception {
        TopicProcessor<String> processor = topic(
                String.class,
                (context, payload) -> {
                    throw new IllegalArgumentException("bad " + payload);
                },
                null);
        processor.accept(new TopicMessage("m1", "\"a\"", 1));
        assertEquals("m1 retry 250 IllegalArgumentException: bad a", next());
        processor.accept(new TopicMessage("m2", "\"b\"", 3));
        assertEquals("m2 drop failed 3 times (max 2 retries): IllegalArgumentException: bad b", next());
        awaitAllSlotsFree();
    }

    @Test
    void givenATopicMessageWhoseAckStageFails_whenSettled_thenItIsAbandonedToTheBroker() throws Exception {
        TopicMessage message = new TopicMessage("m3", "\"c\"", 1);
        message.ackStage = CompletableFuture.failedFuture(new IllegalStateException("channel closed"));
        topic(String.class, (context, payload) -> {}, null).accept(message);
        assertEquals("m3 ack", next());
        assertEquals("m3 abandon", next());
        awaitAllSlotsFree();
    }

    @Test
    void givenATopicMessageWithAnUnreadablePayload_whenProcessed_thenItIsDroppedAtOnceWithoutRunning()
            throws Exception {
        topic(Ride.class, (context, payload) -> settled.add("ran " + payload), Duration.ofSeconds(5))
                .accept(new TopicMessage("m4", "not json", 1));
        assertEquals("m4 drop payload is not valid JSON: not json", next());
        awaitAllSlotsFree();
        assertNull(settled.poll(), "the handler never ran");
    }

    /** Records each settlement as {@code "<id> <what> [<delay ms>] [<reason>]"}; stages complete at once. */
    private abstract class Recorded {
        final String id;
        CompletionStage<Void> ackStage = CompletableFuture.completedFuture(null);

        Recorded(String id) {
            this.id = id;
        }

        CompletionStage<Void> record(String what) {
            settled.add(id + " " + what);
            return CompletableFuture.completedFuture(null);
        }

        public CompletionStage<Void> ack() {
            record("ack");
            return ackStage;
        }

        public CompletionStage<Void> retry(Duration delay, String error) {
            return record("retry " + delay.toMillis() + " " + error);
        }

        public void abandon() {
            record("abandon");
        }
    }

    private final class JobDelivery extends Recorded implements Delivery {
        private final String task;
        private final String payload;
        private final int count;

        JobDelivery(String id, String task, String payload, int count) {
            super(id);
            this.task = task;
            this.payload = payload;
            this.count = count;
        }

        @Override
        public String queue() {
            return "default";
        }

        @Override
        public String taskName() {
            return task;
        }

        @Override
        public String payloadJson() {
            return payload;
        }

        @Override
        public long enqueuedAtMs() {
            return 0;
        }

        @Override
        public JobMeta meta() {
            return JobMeta.NONE;
        }

        @Override
        public int deliveryCount() {
            return count;
        }

        @Override
        public String jobId() {
            return id;
        }

        @Override
        public String deliveryId() {
            return id;
        }

        @Override
        public CompletionStage<Void> deadLetter(String error) {
            return record("dead-letter " + error);
        }
    }

    private final class TopicMessage extends Recorded implements TopicDelivery {
        private final String payload;
        private final int count;

        TopicMessage(String id, String payload, int count) {
            super(id);
            this.payload = payload;
            this.count = count;
        }

        @Override
        public String topic() {
            return "rides";
        }

        @Override
        public String messageId() {
            return id;
        }

        @Override
        public String payloadJson() {
            return payload;
        }

        @Override
        public long publishedAtMs() {
            return 0;
        }

        @Override
        public int deliveryCount() {
            return count;
        }

        @Override
        public CompletionStage<Void> drop(String reason) {
            return record("drop " + reason);
        }

        @Override
        public Optional<String> deadLetterDestination() {
            return Optional.empty();
        }
    }
}
