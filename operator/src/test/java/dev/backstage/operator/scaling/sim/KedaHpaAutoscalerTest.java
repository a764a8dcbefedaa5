package dev.backstage.operator.scaling.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The baseline model against the KEDA and HPA behaviour it claims to reproduce (a check of the simulator's
 * fairness, not a simulation run: each case is a few hundred ticks).
 */
class KedaHpaAutoscalerTest {
    /** 1000 jobs at t=0 that nobody finishes within the test: the metric stays at 1000. */
    private static final ArrivalTrace BURST = new ArrivalTrace("burst", "1000 jobs at once", 0.1, t -> 10_000);

    private static final Workload STUCK = new Workload(1, 1_000_000, 0, 10);

    private static List<Integer> replicasEverySecond(SimulatedCluster cluster, Autoscaler autoscaler, int seconds) {
        List<Integer> replicas = new ArrayList<>();
        for (long now = 0; now <= seconds * 1000L; now += SimulationRunner.TICK_MS) {
            cluster.advance(now, SimulationRunner.TICK_MS);
            autoscaler.tick(now, cluster);
            if (now % 1000 == 0) {
                replicas.add(cluster.desiredReplicas());
            }
        }
        return replicas;
    }

    @Test
    void givenABigBacklogAtZero_thenKedaActivatesToOneAndTheHpaDoublesOrAddsFourEvery15Seconds() {
        SimulatedCluster cluster = new SimulatedCluster(BURST, STUCK, 30);
        KedaHpaAutoscaler keda =
                new KedaHpaAutoscaler(KedaSettings.defaults(10, 40, KedaMetric.READY_PLUS_UNACKED, 0), 0, 0);

        List<Integer> replicas = replicasEverySecond(cluster, keda, 60);

        assertEquals(5, replicas.get(0), "0→1 by KEDA, then the HPA's first sync: max(1 + 4, 1 * 2)");
        assertEquals(5, replicas.get(14));
        assertEquals(10, replicas.get(15));
        assertEquals(20, replicas.get(30));
        assertEquals(40, replicas.get(45), "maxReplicaCount");
    }

    @Test
    void givenKafkaLagCappedAtThePartitionCount_whenOneBelowTheCap_thenTheHpaToleranceHoldsIt() {
        SimulatedCluster cluster = new SimulatedCluster(BURST, new Workload(1, 1_000_000, 12, 10), 30);
        cluster.setReplicas(11, 0);
        KedaHpaAutoscaler keda =
                new KedaHpaAutoscaler(KedaSettings.defaults(10, 40, KedaMetric.KAFKA_LAG_CAPPED, 12), 0, 0);

        List<Integer> replicas = replicasEverySecond(cluster, keda, 120);

        // metric = 12 * 10 = 120 (capped); 120 / (10 * 11) = 1.09, within the 10 % tolerance.
        assertEquals(11, replicas.get(120));
    }

    @Test
    void givenTheQueueEmpties_thenKedaScalesToZeroOnlyAfterTheCooldown() {
        ArrivalTrace fewJobs = new ArrivalTrace("few", "5 jobs at once", 0.1, t -> 50);
        SimulatedCluster cluster = new SimulatedCluster(fewJobs, new Workload(1, 1, 0, 10), 30);
        KedaHpaAutoscaler keda =
                new KedaHpaAutoscaler(KedaSettings.defaults(10, 40, KedaMetric.READY_PLUS_UNACKED, 0), 0, 0);

        List<Integer> replicas = replicasEverySecond(cluster, keda, 301);

        assertEquals(1, replicas.get(0));
        assertEquals(1, replicas.get(299), "last active at the t=0 poll; cooldown 300 s");
        assertEquals(0, replicas.get(300));
    }
}
