package dev.backstage.operator.workload;

import static dev.backstage.operator.testing.BackstageFixtures.pool;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.backstage.operator.model.AutoscalingSpec;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import org.junit.jupiter.api.Test;

class DeploymentReplicasTest {
    @Test
    void givenAutoscalingOff_thenSpecReplicas() {
        BackstageWorkerPool pool = pool("ns", "p", "t", "q");
        pool.getSpec().setReplicas(4);
        pool.setStatus(status(9));
        assertEquals(4, DeploymentReplicas.of(pool), "status.desiredReplicas is the autoscaler's, ignored when off");
    }

    @Test
    void givenAutoscalingOnWithoutDecision_thenMinReplicas() {
        BackstageWorkerPool pool = autoscaled(0, 5);
        assertEquals(0, DeploymentReplicas.of(pool));
    }

    @Test
    void givenAutoscalingOn_thenStatusDesiredReplicasClampedToBounds() {
        BackstageWorkerPool pool = autoscaled(2, 5);
        pool.setStatus(status(4));
        assertEquals(4, DeploymentReplicas.of(pool));
        pool.setStatus(status(9));
        assertEquals(5, DeploymentReplicas.of(pool));
        pool.setStatus(status(0));
        assertEquals(2, DeploymentReplicas.of(pool));
    }

    private static BackstageWorkerPool autoscaled(int min, int max) {
        BackstageWorkerPool pool = pool("ns", "p", "t", "q");
        AutoscalingSpec autoscaling = new AutoscalingSpec();
        autoscaling.setEnabled(true);
        autoscaling.setMinReplicas(min);
        autoscaling.setMaxReplicas(max);
        pool.getSpec().setAutoscaling(autoscaling);
        return pool;
    }

    private static BackstageWorkerPoolStatus status(int desired) {
        BackstageWorkerPoolStatus status = new BackstageWorkerPoolStatus();
        status.setDesiredReplicas(desired);
        return status;
    }
}
