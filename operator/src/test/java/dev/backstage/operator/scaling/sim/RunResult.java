package dev.backstage.operator.scaling.sim;

import java.util.List;

/**
 * What one run (one trace, one autoscaler, one loop phase) measured.
 *
 * @param reachSeconds   per rise of the need: seconds until that many replicas were ready
 * @param unreached      rises never reached before the need fell again (their time is a lower bound)
 * @param replicaSeconds pod-seconds, start-up and graceful shutdown included
 * @param p99WaitSeconds 99th percentile of arrival-to-start of the run that completed
 * @param scaleEvents    changes of the Deployment's replicas
 * @param killed         in-flight jobs killed at the end of a termination grace period
 */
record RunResult(List<Double> reachSeconds, int unreached, double replicaSeconds, double p99WaitSeconds,
                 int scaleEvents, long killed) {}
