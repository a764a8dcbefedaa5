package dev.backstage.operator.scaling.sim;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Runs one contestant on one scenario at one loop phase, tick by tick. Deterministic. */
final class SimulationRunner {
    static final long TICK_MS = 100;

    RunResult run(Scenario scenario, Contestant contestant, int phase) {
        SimulatedCluster cluster = new SimulatedCluster(scenario.trace(), scenario.workload(), contestant.graceSeconds());
        Autoscaler autoscaler = contestant.factory().apply(phase);
        ReachTracker reach = new ReachTracker();
        long endMs = Math.round((scenario.trace().durationSeconds() + scenario.tailSeconds()) * 1000);
        for (long now = 0; now <= endMs; now += TICK_MS) {
            cluster.advance(now, TICK_MS);
            autoscaler.tick(now, cluster);
            reach.observe(now, scenario.neededAt(now / 1000.0), cluster.readyReplicas(now));
        }
        reach.finish(endMs);
        return new RunResult(List.copyOf(reach.reachSeconds()), reach.unreached(), cluster.replicaSeconds(),
                percentile(cluster.waitsMs(endMs), 0.99) / 1000.0, cluster.scaleEvents(), cluster.killed());
    }

    static double percentile(List<Long> values, double quantile) {
        if (values.isEmpty()) {
            return 0;
        }
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int index = (int) Math.ceil(quantile * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }
}
