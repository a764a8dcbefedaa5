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

/** When a new pool says nothing yet: its topology has no verdict and the pool is younger than the wait (30 s). */
class FirstTopologyVerdictTest {
    private static final Instant NOW = Instant.parse("2026-12-02T10:00:30Z");

    @ParameterizedTest(name = "pool created {0}, pool status {1}, topology Ready condition {2} -> waits {3}")
    @CsvSource({
            "2026-12-02T10:00:29Z, false, none,  true",
            "2026-12-02T10:00:01Z, false, none,  true",
            "2026-12-02T10:00:00Z, false, none,  false", // 30 s old: says TopologyNotReady itself
            "2026-12-02T09:00:00Z, false, none,  false",
            "2026-12-02T10:00:29Z, true,  none,  false", // has said something before: keeps saying it
            "2026-12-02T10:00:29Z, false, False, false", // the topology has a verdict: the pool reports it
            "2026-12-02T10:00:29Z, false, True,  false",
            ",                     false, none,  false", // no creation time: nothing to bound the wait by
            "not-a-time,           false, none,  false"
    })
    void table(String created, boolean poolHasStatus, String topologyReady, boolean waits) {
        BackstageWorkerPool pool = pool("ns", "workers", "orders", "default");
        pool.getMetadata().setCreationTimestamp(created);
        if (poolHasStatus) {
            pool.setStatus(new BackstageWorkerPoolStatus());
        }
        BackstageTopology topology = redisTopology("ns", "orders", "default");
        if (!"none".equals(topologyReady)) {
            topology.setStatus(new BackstageTopologyStatus());
            Conditions.set(topology.getStatus().getConditions(), Conditions.READY, topologyReady, "Declared", "m", 1L,
                    NOW);
        }
        assertEquals(waits, WorkerPoolReconciler.awaitsFirstTopologyVerdict(pool, topology, NOW));
    }
}
