/**
 * Backlog-driven autoscaling, the pure part: sample history + policy → desired replicas + reason. No
 * Kubernetes, no broker, no clock; everything is a value, so it is tested as a table and simulated.
 *
 * <h2>How the operator uses it (per pool, every {@code pollInterval}, default 5 s)</h2>
 * <pre>{@code
 * ScalingPolicy policy = ScalingPolicy.builder()                 // from the pool spec
 *         .minReplicas(spec.minReplicas()).maxReplicas(spec.maxReplicas())
 *         .targetBacklogPerReplica(spec.targetBacklogPerReplica())
 *         .targetDrain(spec.targetDrainSeconds() == null ? null : Duration.ofSeconds(spec.targetDrainSeconds()))
 *         .concurrencyPerReplica(spec.concurrency())              // lets scale-down keep busy replicas
 *         .partitionCap(kafka ? partitionCount : null)
 *         .podStartup(spec.podStartupTime()).pollInterval(spec.pollInterval())
 *         .build();
 *
 * BacklogSample sample;
 * try {
 *     BacklogReport report = probe.measure(queues, consumerGroup);
 *     sample = BacklogSample.of(report, deployment.readyReplicas(), arrivedTotalOrNull, completedTotalOrNull);
 * } catch (BacklogUnavailableException e) {
 *     sample = BacklogSample.unavailable(clock.instant(), deployment.readyReplicas(), e);
 * }
 * history = history.append(sample, policy.historyRetention());  // keep one SampleHistory per pool
 * ScalingDecision decision = decider.decide(policy, deployment.specReplicas(), history);
 * if (decision.changesReplicas()) {
 *     scale the Deployment to decision.desiredReplicas(); record an Event with decision.reason()
 * }
 * next poll after decision.probeAgainIn() if it is set, else after pollInterval
 * status: desiredReplicas, lastScaleReason = decision.reason() (and lastScaleTime when it changed),
 *         condition BacklogAvailable = decision.backlogAvailable() (reason: the sample's unavailableReason),
 *         condition ScalingLimited = decision.limited(), reason decision.limitedBy().conditionReason()
 * }</pre>
 *
 * <h2>What the sample needs from a probe</h2>
 * Undelivered and in-flight counts ({@link dev.backstage.runtime.spi.BacklogReport}). In flight {@code -1}
 * (unknown) is allowed but keeps one replica instead of zero. A Kafka probe should report the lag as
 * undelivered and in flight as 0: the lag already holds records being processed (uncommitted), and 0 lets
 * an idle group scale to zero. The drain target and capacity measurement need one cumulative counter,
 * arrivals (stream entries-added, sum of end offsets) or completions; without it they are skipped and the
 * reason says so.
 *
 * <h2>Rules</h2> See {@link dev.backstage.operator.scaling.ScalingDecider}. Compared with KEDA + the HPA:
 * outstanding work (undelivered + in flight) is counted, not only the ready queue; scale-up is immediate
 * (no +100 % / +4 per 15 s limit); the scale-down window is 60 s (not 300 s) with a 10 % headroom band
 * instead of a symmetric tolerance; a missing figure holds (never read as 0); Kafka is capped at the
 * partition count directly, not by clamping the lag metric; with an arrival counter the pool is sized for the
 * arrival rate expected when new pods are ready ({@code podStartup} + one poll ahead), not only once the
 * backlog has climbed; a scale-up that activates the pool or answers an arrival step takes one extra sample
 * a second later ({@link dev.backstage.operator.scaling.ScalingDecision#probeAgainIn()}) to measure the new rate.
 *
 * <p>A benchmark against a simulation of KEDA + the HPA is in the test sources:
 * {@code dev.backstage.operator.scaling.sim.AutoscalingSimulation}.
 */
package dev.backstage.operator.scaling;
