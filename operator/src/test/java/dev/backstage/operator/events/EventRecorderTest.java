package dev.backstage.operator.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.testing.BackstageFixtures;
import dev.backstage.operator.testing.MockKubernetes;
import io.fabric8.kubernetes.api.model.Event;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class EventRecorderTest {
    private static final Duration FLUSH = Duration.ofSeconds(30);
    private static MockKubernetes mock;
    private static EventRecorder recorder;

    @BeforeAll
    static void start() {
        mock = MockKubernetes.start();
        recorder = new EventRecorder(mock.client(), "backstage-operator", "test-0", Clock.systemUTC());
    }

    @AfterAll
    static void stop() {
        mock.close();
    }

    @Test
    void givenAnEvent_whenRecorded_thenItNamesItsObjectReasonAndReporter() throws InterruptedException {
        BackstageWorkerPool pool = mock.client()
                .resource(BackstageFixtures.pool("events-a", "p", "t", "q"))
                .create();

        recorder.warning(pool, "TopologyNotFound", "BackstageTopology 't' not found");
        assertTrue(recorder.flush(FLUSH), "written in the background");

        List<Event> events =
                mock.client().v1().events().inNamespace("events-a").list().getItems();
        assertEquals(1, events.size());
        Event event = events.get(0);
        assertEquals("Warning", event.getType());
        assertEquals("TopologyNotFound", event.getReason());
        assertEquals("BackstageWorkerPool", event.getInvolvedObject().getKind());
        assertEquals("p", event.getInvolvedObject().getName());
        assertEquals(pool.getMetadata().getUid(), event.getInvolvedObject().getUid());
        assertEquals("backstage-operator", event.getSource().getComponent());
        assertEquals("test-0", event.getReportingInstance());
        assertEquals(1, event.getCount());
    }

    @Test
    void givenARepeatedEvent_whenRecorded_thenTheCountIsBumpedInsteadOfAddingAnEvent() throws InterruptedException {
        BackstageWorkerPool pool = mock.client()
                .resource(BackstageFixtures.pool("events-b", "p", "t", "q"))
                .create();

        recorder.warning(pool, "ReconcileFailed", "boom");
        recorder.warning(pool, "ReconcileFailed", "boom");
        recorder.warning(pool, "ReconcileFailed", "boom");
        recorder.normal(pool, "PoolReady", "2/2 replicas ready");
        assertTrue(recorder.flush(FLUSH), "written in the background");

        List<Event> events =
                mock.client().v1().events().inNamespace("events-b").list().getItems();
        assertEquals(2, events.size());
        Event failed = events.stream()
                .filter(e -> e.getReason().equals("ReconcileFailed"))
                .findFirst()
                .orElseThrow();
        assertEquals(3, failed.getCount());
    }

    @Test
    void givenQueuedEvents_whenClosed_thenTheyAreWrittenAndLaterEventsAreDropped() {
        BackstageWorkerPool pool = mock.client()
                .resource(BackstageFixtures.pool("events-c", "p", "t", "q"))
                .create();
        EventRecorder closing = new EventRecorder(mock.client(), "backstage-operator", "test-1", Clock.systemUTC());
        closing.normal(pool, "ConfigCreated", "one");
        closing.normal(pool, "DeploymentCreated", "two");
        closing.normal(pool, "PoolReady", "three");

        closing.close();
        closing.normal(pool, "Scaled", "after close");

        List<String> reasons = mock.client().v1().events().inNamespace("events-c").list().getItems().stream()
                .map(Event::getReason)
                .sorted()
                .toList();
        assertEquals(List.of("ConfigCreated", "DeploymentCreated", "PoolReady"), reasons);
    }
}
