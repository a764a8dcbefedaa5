package dev.backstage.runtime.api;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.backstage.runtime.spi.Backoff;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What broadcast promises on every broker, run against each one by a subclass: every running worker receives
 * each broadcast exactly once; a worker started later does not receive earlier ones; a failing handler is
 * retried on its own worker only, by the topic rule (retry while {@code deliveryCount <= maxDeliveries}, then
 * dropped). Subclasses add what the broker's own state shows.
 */
public abstract class BroadcastContract {
    protected static final Duration WAIT = Duration.ofSeconds(30);
    protected final List<Worker> workers = new CopyOnWriteArrayList<>();

    /** A builder on a fresh provider of the broker under test, isolated by this test's prefix. */
    protected abstract Worker.Builder builder();

    /** The broker shows one live listener per consumer id (and nothing pending once all is handled). */
    protected abstract void assertListeners(List<String> consumerIds);

    @AfterEach
    void closeWorkers() {
        workers.forEach(Worker::close);
    }

    protected Worker started(String consumerId, List<String> seen) {
        Worker worker = builder()
                .consumerId(consumerId)
                .backoff(Backoff.fixed(Duration.ofMillis(20)))
                .build();
        workers.add(worker);
        worker.onBroadcast(
                "cache.invalidate", Map.class, (ctx, p) -> seen.add(p.get("key") + "@" + ctx.deliveryCount()));
        worker.start();
        return worker;
    }

    @Test
    void givenTwoWorkers_thenEachReceivesEveryBroadcastExactlyOnce() {
        List<String> a = new CopyOnWriteArrayList<>();
        List<String> b = new CopyOnWriteArrayList<>();
        Worker wa = started("wa", a);
        started("wb", b);
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            wa.broadcast("cache.invalidate", Map.of("key", "user:" + i));
            expected.add("user:" + i + "@1");
        }
        wa.broadcast("nobody.handles.this", Map.of("key", "x"));
        wa.broadcast("cache.invalidate", Map.of("key", "last"));
        expected.add("last@1");
        // Each listener reads in send order: once "last" arrived, everything before it did too, once each.
        await().atMost(WAIT).until(() -> a.contains("last@1") && b.contains("last@1"));
        assertEquals(expected.stream().sorted().toList(), a.stream().sorted().toList());
        assertEquals(expected.stream().sorted().toList(), b.stream().sorted().toList());
        assertListeners(List.of("wa", "wb"));
    }

    @Test
    void givenAWorkerStartedAfterABroadcast_thenItReceivesOnlyLaterOnes() {
        List<String> early = new CopyOnWriteArrayList<>();
        List<String> late = new CopyOnWriteArrayList<>();
        Worker first = started("first", early);
        first.broadcast("cache.invalidate", Map.of("key", "before"));
        await().atMost(WAIT).until(() -> early.contains("before@1"));
        started("late", late);
        first.broadcast("cache.invalidate", Map.of("key", "after"));
        await().atMost(WAIT).until(() -> late.contains("after@1") && early.contains("after@1"));
        assertEquals(List.of("after@1"), late);
        assertEquals(List.of("before@1", "after@1"), early);
    }

    @Test
    void givenAFailingHandler_thenItIsRetriedOnItsWorkerOnlyThenDropped() {
        List<Integer> failing = new CopyOnWriteArrayList<>();
        List<String> healthy = new CopyOnWriteArrayList<>();
        Worker bad = builder()
                .consumerId("bad")
                .maxDeliveries(3)
                .backoff(Backoff.fixed(Duration.ofMillis(20)))
                .build();
        workers.add(bad);
        bad.onBroadcast("cache.invalidate", Map.class, (ctx, p) -> {
            failing.add(ctx.deliveryCount());
            throw new IllegalStateException("cache unreachable");
        });
        bad.start();
        Worker good = started("good", healthy);
        good.broadcast("cache.invalidate", Map.of("key", "k1"));
        // maxDeliveries 3: failures at deliveries 1..3 are retried, the 4th failure drops it.
        await().atMost(WAIT).until(() -> bad.totals().deadLetters() == 1 && !healthy.isEmpty());
        assertEquals(List.of(1, 2, 3, 4), failing);
        assertEquals(List.of("k1@1"), healthy, "the other worker got it once, and none of the retries");

        // A handler that fails once and then succeeds gets the message again with delivery count 2.
        List<Integer> flaky = new CopyOnWriteArrayList<>();
        Worker once = builder()
                .consumerId("flaky")
                .backoff(Backoff.fixed(Duration.ofMillis(20)))
                .build();
        workers.add(once);
        once.onBroadcast("cache.invalidate", Map.class, (ctx, p) -> {
            flaky.add(ctx.deliveryCount());
            if (ctx.deliveryCount() == 1) {
                throw new IllegalStateException("first try fails");
            }
        });
        once.start();
        good.broadcast("cache.invalidate", Map.of("key", "k2"));
        await().atMost(WAIT).until(() -> flaky.contains(2) && healthy.contains("k2@1"));
        assertEquals(List.of(1, 2), flaky);
        assertFalse(healthy.contains("k2@2"));
        assertListeners(List.of("bad", "good", "flaky"));
    }

    @Test
    void givenATaskRegisteredTwice_thenRegistrationFails() {
        Worker worker = builder().consumerId("dup").build();
        workers.add(worker);
        worker.onBroadcast("cache.invalidate", Map.class, (ctx, p) -> {});
        org.junit.jupiter.api.Assertions.assertThrows(
                DuplicateTaskException.class, () -> worker.onBroadcast("cache.invalidate", Map.class, (ctx, p) -> {}));
    }
}
