package dev.backstage.operator.scaling.sim;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Runs one contestant on one scenario at one loop phase, tick by tick. Deterministic. */
final class SimulationRunner {
    static final long TICK_MS = 100;

    private final java.io.PrintStream timeline;

    /** @param timeline where to print a 10-second timeline of every run, or {@code null} for none */
    SimulationRunner(java.io.PrintStream timeline) {
        this.timeline = timeline;
    }

    RunResult run(Scenario scenario, Contestant contestant, int phase) {
        SimulatedCluster cluster =
                new SimulatedCluster(scenario.trace(), scenario.workload(), contestant.graceSeconds(), 1000L + phase);
        Autoscaler autoscaler = contestant.factory().apply(phase);
        ReachTracker reach = new ReachTracker();
        ReachTracker ask = new ReachTracker();
        long maxOutstanding = 0;
        double deficit = 0;
        double idleConsumers = 0;
        double stall = 0;
        double longestStall = 0;
        int partitions = scenario.workload().partitions();
        double tickSeconds = TICK_MS / 1000.0;
        long endMs = Math.round((scenario.trace().durationSeconds() + scenario.tailSeconds()) * 1000);
        for (long now = 0; now <= endMs; now += TICK_MS) {
            cluster.advance(now, TICK_MS);
            autoscaler.tick(now, cluster);
            int need = scenario.neededAt(now / 1000.0);
            reach.observe(now, need, cluster.readyReplicas(now));
            ask.observe(now, need, cluster.desiredReplicas());
            maxOutstanding = Math.max(maxOutstanding, cluster.queued() + cluster.inFlight());
            int ready = cluster.readyReplicas(now);
            deficit += Math.max(0, need - ready) * tickSeconds;
            if (partitions > 0) {
                idleConsumers += Math.max(0, ready - partitions) * tickSeconds;
                stall = need == partitions && ready == partitions - 1 ? stall + tickSeconds : 0;
                longestStall = Math.max(longestStall, stall);
            }
            if (timeline != null && now % 10_000 == 0) {
                timeline.printf(
                        java.util.Locale.ROOT,
                        "t=%5.0f need=%2d desired=%2d ready=%2d queued=%6d inflight=%4d%n",
                        now / 1000.0,
                        need,
                        cluster.desiredReplicas(),
                        cluster.readyReplicas(now),
                        cluster.queued(),
                        cluster.inFlight());
            }
        }
        reach.finish(endMs);
        ask.finish(endMs);
        return new RunResult(
                List.copyOf(reach.reachSeconds()),
                reach.unreached(),
                List.copyOf(ask.reachSeconds()),
                maxOutstanding,
                deficit,
                idleConsumers,
                longestStall,
                cluster.replicaSeconds(),
                percentile(cluster.waitsMs(endMs), 0.99) / 1000.0,
                cluster.scaleEvents(),
                cluster.killed());
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
