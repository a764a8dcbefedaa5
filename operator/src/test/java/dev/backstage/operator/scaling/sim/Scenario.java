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
record Scenario(
        ArrivalTrace trace,
        Workload workload,
        int maxReplicas,
        double tailSeconds,
        String notes,
        List<Contestant> contestants) {

    /** The autoscaling target: the needed replicas ready within this factor of {@link #causalBoundSeconds}. */
    static final double TARGET_FACTOR = 1.5;

    /**
     * The causal bound on the time from a rise of the need to that many replicas ready: one job time (before the
     * first job finishes, a backlog of slow jobs looks like one of fast ones), plus pod start-up, plus one poll (the
     * earliest a controller acting on observations sees the change). No autoscaler that is not told beats it.
     */
    double causalBoundSeconds(long pollMs) {
        return workload.serviceSeconds() + workload.startupSeconds() + pollMs / 1000.0;
    }

    int neededAt(double seconds) {
        double rate = trace.rateAt(seconds);
        int need = (int) Math.ceil(rate / workload.perReplicaRate() - 1e-9);
        int cap = workload.partitioned() ? Math.min(maxReplicas, workload.partitions()) : maxReplicas;
        return Math.min(cap, Math.max(0, need));
    }
}
