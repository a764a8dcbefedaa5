package dev.backstage.runtime.rabbitmq;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Acks are coalesced into {@code basic.ack(multiple)} frames ({@link AckWatermark}); the broker's own figures
 * ({@code rabbitmqctl list_queues messages_ready messages_unacknowledged}) show that none is lost or left
 * hanging: not while the worker runs, not behind a slow job, not at close.
 */
@Tag("broker")
class RabbitMqAckCoalescingTest {
    private final RabbitMqTestBroker broker = new RabbitMqTestBroker();
    private final RabbitMqCtl rabbitmqctl = new RabbitMqCtl();

    @AfterEach
    void cleanUp() throws Exception {
        broker.close();
    }

    private RabbitMqCtl.QueueRow row() {
        return rabbitmqctl.listQueues(broker.prefix).get(broker.queue("default"));
    }

    @Test
    void givenJobsSettledOutOfOrderBySixteenHandlersWithRetries_thenTheBrokerHoldsNothingUnackedOnceTheyAreDone()
            throws Exception {
        int jobs = 2_000;
        Set<Integer> handled = ConcurrentHashMap.newKeySet();
        Worker worker =
                broker.own(broker.worker("w").concurrency(16).prefetch(256).build());
        worker.register("job", Integer.class, (ctx, n) -> {
            if (n % 7 == 0 && ctx.deliveryCount() == 1) {
                throw new IllegalStateException("fails once: a retry copy, then the original's ack after its confirm");
            }
            handled.add(n);
            return Next.done();
        });
        worker.start();
        for (int n = 0; n < jobs; n++) {
            worker.enqueue("job", n);
        }

        await().atMost(Duration.ofSeconds(120)).until(() -> handled.size() == jobs && worker.inFlight() == 0);
        // The worker still runs: every ack has been written, none waits for more traffic to carry it.
        await("rabbitmqctl: nothing ready, nothing unacked")
                .atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertEquals(new RabbitMqCtl.QueueRow(0, 0), row()));
        assertEquals((jobs + 6) / 7, worker.totals().retries());
        worker.close();
        assertEquals(new RabbitMqCtl.QueueRow(0, 0), row(), "closing requeued nothing: no ack was left unwritten");
    }

    @Test
    void givenOneSlowJob_thenTheAcksOfTheJobsHandledAfterItAreNotHeldBehindIt() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch slowStarted = new CountDownLatch(1);
        // Prefetch 64: acks above a gap spill one by one at 32; 10 stay below that, so the supervision tick
        // (recovery interval, 1 s) is what writes them.
        Worker worker =
                broker.own(broker.worker("w").concurrency(4).prefetch(64).build());
        worker.register("slow", Integer.class, (ctx, n) -> {
            slowStarted.countDown();
            if (!release.await(120, TimeUnit.SECONDS)) {
                throw new IllegalStateException("never released");
            }
            return Next.done();
        });
        startSlowThenTenFast(worker, slowStarted);
        await("rabbitmqctl: only the slow job unacked")
                .atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertEquals(new RabbitMqCtl.QueueRow(0, 1), row()));
        release.countDown();
        await("rabbitmqctl: nothing left")
                .atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertEquals(new RabbitMqCtl.QueueRow(0, 0), row()));
        worker.close();
        assertEquals(new RabbitMqCtl.QueueRow(0, 0), row());
    }

    @Test
    void givenAcksHeldBehindAJobStillRunningAtClose_thenCloseWritesThemAndOnlyThatJobGoesBack() throws Exception {
        CountDownLatch slowStarted = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        // A long recovery interval: no supervision tick writes the held acks before the close does.
        Worker worker =
                broker.own(broker.worker("w", java.util.Map.of(RabbitMqSettings.OPTION_RECOVERY_INTERVAL_MS, "600000"))
                        .concurrency(4)
                        .prefetch(64)
                        .shutdownGrace(Duration.ofMillis(500))
                        .build());
        worker.register("slow", Integer.class, (ctx, n) -> {
            slowStarted.countDown();
            never.await(); // interrupted at close
            return Next.done();
        });
        startSlowThenTenFast(worker, slowStarted);
        assertEquals(new RabbitMqCtl.QueueRow(0, 11), row(), "the 10 acks wait behind the slow job's tag");

        worker.close();
        assertEquals(new RabbitMqCtl.QueueRow(1, 0), row(), "only the slow job went back to the queue");
    }

    /** Starts the worker, runs the registered "slow" task once and, while it runs, 10 "fast" jobs to completion. */
    private static void startSlowThenTenFast(Worker worker, CountDownLatch slowStarted) throws InterruptedException {
        Set<Integer> handled = ConcurrentHashMap.newKeySet();
        worker.register("fast", Integer.class, (ctx, n) -> {
            handled.add(n);
            return Next.done();
        });
        worker.start();
        worker.enqueue("slow", 0);
        if (!slowStarted.await(30, TimeUnit.SECONDS)) {
            throw new AssertionError("the slow job never started");
        }
        for (int n = 1; n <= 10; n++) {
            worker.enqueue("fast", n);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() == 10);
    }
}
