package dev.backstage.operator.polling;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The polling loop itself, on an in-memory resource: no API server, no broker. */
class PerResourcePollerTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    /** Counts its polls; throws on the polls it is told to. */
    static final class Counting implements PolledResource<ConfigMap> {
        final AtomicInteger polls = new AtomicInteger();
        final AtomicInteger failFirst = new AtomicInteger();
        final AtomicBoolean stopped = new AtomicBoolean();
        volatile ConfigMap seen;

        @Override
        public Duration poll() {
            polls.incrementAndGet();
            if (failFirst.getAndDecrement() > 0) {
                throw new IllegalStateException("a poll that throws");
            }
            return Duration.ofMillis(10);
        }

        @Override
        public void refresh(ConfigMap resource) {
            seen = resource;
        }

        @Override
        public void stop() {
            stopped.set(true);
        }
    }

    static final class Poller extends PerResourcePoller<ConfigMap, Counting> {
        final List<String> deleted = new ArrayList<>();
        final AtomicBoolean closed = new AtomicBoolean();

        Poller() {
            super("test-poller", 1, "test-poller");
        }

        Counting track(ConfigMap resource, Counting fresh) {
            return startPolling(ResourceID.fromResource(resource), () -> fresh);
        }

        @Override
        protected void deleted(ConfigMap resource, boolean wasPolled) {
            deleted.add(resource.getMetadata().getName() + (wasPolled ? " (polled)" : ""));
        }

        @Override
        protected void closing() {
            closed.set(true);
        }
    }

    private final Poller poller = new Poller();

    @AfterEach
    void stop() {
        poller.stop();
    }

    private static ConfigMap resource(String name) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withNamespace("ns")
                .withName(name)
                .endMetadata()
                .build();
    }

    @Test
    void givenAResourceIsTracked_thenItIsPolledAgainAfterEachPoll_andTrackingAgainKeepsTheSameLoop() {
        Counting first = new Counting();
        assertSame(first, poller.track(resource("a"), first));
        assertSame(first, poller.track(resource("a"), new Counting()), "one loop per resource");

        await().atMost(WAIT).until(() -> first.polls.get() >= 3);
        assertEquals(1, poller.size());
    }

    @Test
    void givenAPollThrows_thenPollingGoesOn() {
        Counting failing = new Counting();
        failing.failFirst.set(1);
        poller.track(resource("b"), failing);

        await().atMost(WAIT).until(() -> failing.polls.get() >= 2);
        assertFalse(failing.stopped.get());
    }

    @Test
    void givenAnInformerUpdate_thenThePolledResourceGetsTheNewCopy() {
        Counting polled = new Counting();
        poller.track(resource("c"), polled);
        ConfigMap newer = resource("c");

        poller.onResourceUpdated(newer, resource("c"));

        assertSame(newer, polled.seen);
    }

    @Test
    void givenTheResourceIsDeleted_thenItsLoopStops_andTheSubclassHearsOfIt() {
        Counting polled = new Counting();
        poller.track(resource("d"), polled);

        poller.onResourceDeleted(resource("d"));
        poller.onResourceDeleted(resource("never-polled"));

        assertTrue(polled.stopped.get());
        assertEquals(0, poller.size());
        assertEquals(List.of("d (polled)", "never-polled"), poller.deleted);
    }

    @Test
    void givenThePollerStops_thenEveryLoopStops_andWhatThePollsSharedIsClosed() {
        Counting one = new Counting();
        Counting two = new Counting();
        poller.track(resource("e"), one);
        poller.track(resource("f"), two);

        poller.stop();

        assertTrue(one.stopped.get() && two.stopped.get());
        assertEquals(0, poller.size());
        assertTrue(poller.closed.get());
    }
}
