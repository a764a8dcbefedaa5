package dev.backstage.operator.scaling.sim;

import java.util.List;

/**
 * A trace, a workload and the autoscalers compared on it.
 *
 * @param trace       arrivals
 * @param workload    replica capacity and queue layout
 * @param maxReplicas what both autoscalers may run (the need is capped here and at the partition count)
 * @param tailSeconds idle time simulated after the last arrival, so scale-in costs and kills are counted
 * @param notes       what a reader needs to know about this scenario's configuration
 */
record Scenario(ArrivalTrace trace, Workload workload, int maxReplicas, double tailSeconds, String notes,
                List<Contestant> contestants) {

    int neededAt(double seconds) {
        double rate = trace.rateAt(seconds);
        int need = (int) Math.ceil(rate / workload.perReplicaRate() - 1e-9);
        int cap = workload.partitioned() ? Math.min(maxReplicas, workload.partitions()) : maxReplicas;
        return Math.min(cap, Math.max(0, need));
    }
}
