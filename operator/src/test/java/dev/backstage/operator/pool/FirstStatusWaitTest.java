package dev.backstage.operator.pool;

import static dev.backstage.operator.testing.BackstageFixtures.pool;
import static dev.backstage.operator.testing.BackstageFixtures.redisTopology;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageTopologyStatus;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.operator.model.Conditions;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * When a new pool says nothing yet: it waits on its topology's first verdict or on the Deployment controller's first
 * look at its Deployment, and is younger than the wait (30 s).
 */
class FirstStatusWaitTest {
    private static final Instant NOW = Instant.parse("2026-12-02T10:00:30Z");

    @ParameterizedTest(name = "pool created {0}, pool status {1}, topology Ready {2}, pool readiness {3} -> waits {4}")
    @CsvSource({
        "2026-12-02T10:00:29Z, false, none,  TopologyNotReady,  true",
        "2026-12-02T10:00:01Z, false, none,  TopologyNotReady,  true",
        "2026-12-02T10:00:00Z, false, none,  TopologyNotReady,  false", // 30 s old: says so itself
        "2026-12-02T09:00:00Z, false, none,  TopologyNotReady,  false",
        "2026-12-02T10:00:29Z, true,  none,  TopologyNotReady,  false", // has said something before: keeps saying
        "2026-12-02T10:00:29Z, false, False, TopologyNotReady,  false", // the topology's verdict: reported
        "2026-12-02T10:00:29Z, false, True,  RolloutInProgress, true", // the Deployment controller's first look
        "2026-12-02T10:00:00Z, false, True,  RolloutInProgress, false",
        "2026-12-02T10:00:29Z, true,  True,  RolloutInProgress, false",
        "2026-12-02T10:00:29Z, false, True,  ReplicasNotReady,  false", // pods starting: progress worth showing
        "2026-12-02T10:00:29Z, false, True,  ReplicasReady,     false",
        "2026-12-02T10:00:29Z, false, True,  ReconcileFailed,   false",
        ",                     false, none,  TopologyNotReady,  false", // no creation time: nothing bounds the wait
        "not-a-time,           false, none,  TopologyNotReady,  false"
    })
    void givenANewPoolThatSaysNothingYet_thenItWaitsAsTabled(
            String created, boolean poolHasStatus, String topologyReady, String reason, boolean waits) {
        BackstageWorkerPool pool = pool("ns", "workers", "orders", "default");
        pool.getMetadata().setCreationTimestamp(created);
        if (poolHasStatus) {
            pool.setStatus(new BackstageWorkerPoolStatus());
        }
        BackstageTopology topology = redisTopology("ns", "orders", "default");
        if (!"none".equals(topologyReady)) {
            topology.setStatus(new BackstageTopologyStatus());
            Conditions.set(
                    topology.getStatus().getConditions(), Conditions.READY, topologyReady, "Declared", "m", 1L, NOW);
        }
        PoolReadiness readiness =
                new PoolReadiness("ReplicasReady".equals(reason) ? Conditions.TRUE : Conditions.FALSE, reason, "m");
        assertEquals(waits, WorkerPoolReconciler.firstStatusWaits(pool, topology, readiness, NOW));
    }
}
