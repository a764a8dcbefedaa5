package dev.backstage.operator.pool;

import static dev.backstage.operator.testing.BackstageFixtures.redisTopology;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageTopologyStatus;
import dev.backstage.operator.model.Conditions;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.javaoperatorsdk.operator.AggregatedOperatorException;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PoolReadinessTest {
    private static BackstageTopology readyTopology() {
        BackstageTopology topology = redisTopology("ns", "t", "q");
        topology.setStatus(new BackstageTopologyStatus());
        Conditions.set(
                topology.getStatus().getConditions(),
                Conditions.READY,
                Conditions.TRUE,
                "Declared",
                "ok",
                1L,
                Instant.now());
        return topology;
    }

    private static Deployment deployment(long generation, Long observed, int updated, int ready) {
        return new DeploymentBuilder()
                .withNewMetadata()
                .withGeneration(generation)
                .endMetadata()
                .withNewStatus()
                .withObservedGeneration(observed)
                .withUpdatedReplicas(updated)
                .withReadyReplicas(ready)
                .endStatus()
                .build();
    }

    @Test
    void givenOneReadyReplica_thenThePoolIsReady_andNotFalseWhileMoreReplicasStart() {
        assertEquals(
                PoolReadiness.ROLLOUT_IN_PROGRESS,
                PoolReadiness.of(readyTopology(), Optional.of(deployment(2, 1L, 0, 0)), 3)
                        .reason());
        assertEquals(
                PoolReadiness.ROLLOUT_IN_PROGRESS,
                PoolReadiness.of(readyTopology(), Optional.of(deployment(2, 2L, 1, 0)), 3)
                        .reason());
        assertEquals(
                PoolReadiness.REPLICAS_NOT_READY,
                PoolReadiness.of(readyTopology(), Optional.of(deployment(2, 2L, 3, 0)), 3)
                        .reason());
        PoolReadiness scalingUp = PoolReadiness.of(readyTopology(), Optional.of(deployment(2, 1L, 1, 1)), 3);
        assertTrue(scalingUp.ready());
        assertEquals("1/3 replicas ready", scalingUp.message());
        PoolReadiness ready = PoolReadiness.of(readyTopology(), Optional.of(deployment(2, 2L, 3, 3)), 3);
        assertTrue(ready.ready());
        assertEquals("3/3 replicas ready", ready.message());
        assertEquals(
                PoolReadiness.DEPLOYMENT_NOT_FOUND,
                PoolReadiness.of(readyTopology(), Optional.empty(), 3).reason());
    }

    @Test
    void givenReplicasConverging_thenScalingSaysWhichWay_andStableOnceTheyHave() {
        assertEquals(
                PoolScaling.SCALING_UP,
                PoolScaling.of(Optional.of(deployment(2, 2L, 3, 1)), 3).reason());
        assertEquals(
                PoolScaling.SCALING_UP,
                PoolScaling.of(Optional.of(deployment(2, 1L, 1, 1)), 3).reason());
        assertEquals(
                PoolScaling.ROLLING_OUT,
                PoolScaling.of(Optional.of(deployment(2, 2L, 1, 3)), 3).reason());
        PoolScaling stable = PoolScaling.of(Optional.of(deployment(2, 2L, 3, 3)), 3);
        assertEquals(PoolScaling.STABLE, stable.reason());
        assertFalse(stable.inProgress());
        assertEquals(Conditions.UNKNOWN, PoolScaling.of(Optional.empty(), 3).status());
    }

    @Test
    void givenARolloutOrStartingPods_thenOnlyTheyAreRecheckedUntilReady() {
        assertTrue(PoolReadiness.of(readyTopology(), Optional.of(deployment(2, 1L, 0, 0)), 3)
                .awaitsRollout());
        assertTrue(PoolReadiness.of(readyTopology(), Optional.of(deployment(2, 2L, 3, 0)), 3)
                .awaitsRollout());
        assertFalse(PoolReadiness.of(readyTopology(), Optional.of(deployment(2, 2L, 3, 3)), 3)
                .awaitsRollout());
        assertFalse(PoolReadiness.of(readyTopology(), Optional.empty(), 3).awaitsRollout());
        assertFalse(PoolReadiness.topologyNotFound("ns", "orders").awaitsRollout());
    }

    @Test
    void givenAPoolScaledToZero_thenItIsReady() {
        PoolReadiness zero = PoolReadiness.of(readyTopology(), Optional.of(deployment(1, 1L, 0, 0)), 0);
        assertTrue(zero.ready());
        assertTrue(zero.message().contains("scaled to zero"));
    }

    @Test
    void givenAWorkflowFailure_thenItIsSummarisedWithoutStackTraces() {
        Exception e = new AggregatedOperatorException(
                "Exception(s) during workflow execution. Details:\n at a.b.C(C.java:1)",
                Map.of("deployment", new IllegalStateException("forbidden: deployments.apps is forbidden\n\tat x.Y")));
        PoolReadiness failed = PoolReadiness.failed(e);
        assertFalse(failed.ready());
        assertEquals("deployment: IllegalStateException: forbidden: deployments.apps is forbidden", failed.message());
    }
}
