package dev.backstage.operator.pool;

import static dev.backstage.operator.testing.BackstageFixtures.pool;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.Test;

class PoolChangeFilterTest {
    private final PoolChangeFilter filter = new PoolChangeFilter();

    private static BackstageWorkerPool version(long generation, Integer desired, Integer ready) {
        BackstageWorkerPool pool = pool("ns", "p", "t", "q");
        pool.getMetadata().setGeneration(generation);
        BackstageWorkerPoolStatus status = new BackstageWorkerPoolStatus();
        status.setDesiredReplicas(desired);
        status.setReadyReplicas(ready);
        pool.setStatus(status);
        return pool;
    }

    @Test
    void givenASpecChange_thenItTriggersAReconcile() {
        assertTrue(filter.accept(version(2, 1, 1), version(1, 1, 1)));
    }

    @Test
    void givenANewAutoscalerDecision_thenItTriggersAReconcile() {
        assertTrue(filter.accept(version(1, 4, 1), version(1, 1, 1)));
        assertTrue(filter.accept(version(1, 4, 1), version(1, null, 1)));
    }

    @Test
    void givenOtherStatusWrites_thenTheyDoNotTriggerAReconcile() {
        assertFalse(filter.accept(version(1, 1, 2), version(1, 1, 1)));
    }

    @Test
    void givenADeletionMark_thenItTriggersAReconcile() {
        BackstageWorkerPool deleting = Serialization.clone(version(1, 1, 1));
        deleting.getMetadata().setDeletionTimestamp("2025-01-01T00:00:00Z");
        assertTrue(filter.accept(deleting, version(1, 1, 1)));
    }
}
