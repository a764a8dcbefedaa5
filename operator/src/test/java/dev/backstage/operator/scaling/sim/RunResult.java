package dev.backstage.operator.scaling.sim;

import java.util.List;

/**
 * What one run (one trace, one autoscaler, one loop phase) measured.
 *
 * @param reachSeconds   per rise of the need: seconds until that many replicas were ready
 * @param unreached      rises never reached before the need fell again (their time is a lower bound)
 * @param askSeconds     per rise of the need: seconds until the Deployment asked for that many (the
 *                       autoscaler's own latency, without the pod start-up both share)
 * @param maxOutstanding highest undelivered + in-flight count seen
 * @param deficitReplicaSeconds integral of (needed - ready replicas) while short of the need
 * @param idleConsumerReplicaSeconds Kafka: integral of ready replicas beyond the partition count (they get no
 *                       partition); 0 elsewhere
 * @param longestStallSeconds Kafka: longest stretch at one replica below the partition count while the need
 *                       was the partition count (the HPA-tolerance stall); 0 elsewhere
 * @param replicaSeconds pod-seconds, start-up and graceful shutdown included
 * @param p99WaitSeconds 99th percentile of arrival-to-start of the run that completed
 * @param scaleEvents    changes of the Deployment's replicas
 * @param killed         in-flight jobs killed at the end of a termination grace period
 */
record RunResult(
        List<Double> reachSeconds,
        int unreached,
        List<Double> askSeconds,
        long maxOutstanding,
        double deficitReplicaSeconds,
        double idleConsumerReplicaSeconds,
        double longestStallSeconds,
        double replicaSeconds,
        double p99WaitSeconds,
        int scaleEvents,
        long killed) {}
