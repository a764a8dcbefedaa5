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
 *         .podStartup(measuredOrSpec.podStartupTime()).pollInterval(spec.pollInterval())
 *         .scaleUpLookahead(spec.scaleUpLookahead()).scaleDownInterval(spec.scaleDownInterval())
 *         .build();
 *
 * BacklogSample sample;
 * try {
 *     BacklogReport report = probe.measure(queues, consumerGroup);
 *     sample = BacklogSample.of(report, deployment.readyReplicas()); // with the report's counters, summed
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
 * arrivals (stream entries-added, sum of end offsets) or completions (Kafka: committed positions); without it
 * they are skipped and the reason says so. The operator also notes on each sample the replicas it had asked
 * for ({@link dev.backstage.operator.scaling.BacklogSample#askedReplicas()}), which is how down-moves are
 * rate-limited without state in the decider.
 *
 * <h2>Rules</h2> See {@link dev.backstage.operator.scaling.ScalingDecider}. Compared with KEDA + the HPA:
 * outstanding work (undelivered + in flight) is counted, not only the ready queue; scale-up is immediate
 * (no +100 % / +4 per 15 s limit); the scale-down window is 60 s (not 300 s); a missing figure holds (never read
 * as 0); Kafka is capped at the partition count directly, not by clamping the lag metric; with an arrival counter
 * the pool is sized for the arrival rate expected when new pods are ready ({@code podStartup} + one poll ahead,
 * the start-up measured from the pool's pods once three were seen Ready, {@link PodStartupTimes}), not only once
 * the backlog has climbed; a scale-up that activates the pool or answers an arrival step takes one extra sample
 * a second later ({@link dev.backstage.operator.scaling.ScalingDecision#probeAgainIn()}) to measure the new rate.
 *
 * <h2>Fast, cheap and calm</h2>
 * <ul>
 *   <li><b>A replica's capacity</b> is measured only over intervals in which the ready count held (a pod that
 *       became ready at an interval's end did not work through it), and the busy measurement and the job-time
 *       one are reconciled ({@link RateEstimator}).</li>
 *   <li><b>A step is a new level</b>, not a slope: the arrival trend is a line or a step, whichever fits, and a
 *       step is sized for its new level. A burst after an idle gap holds the pool (no scale-down on that poll)
 *       and probes again a second later; so does a burst that resumes gently (a ramp from zero), until its trend
 *       shows, and no down-move is made while the arrival line rises toward the count. While jobs wait and the ready replicas serve less than arrives, the
 *       pool is sized for the backlog the new pods will find, so a step is one move.</li>
 *   <li><b>Calm up</b>: while the arrival line rises, a scale-up sizes {@code scaleUpLookahead} (120 s) further
 *       ahead, adding at most a quarter (or 3 replicas on a small pool); those replicas count in the scale-down
 *       window, so they are not dropped at the next poll.</li>
 *   <li><b>Calm down</b>: a down-move takes at least 20 % of the count (and at least 2 replicas, unless to zero
 *       or minReplicas), on top of the window's 10 % headroom; at most one per {@code scaleDownInterval} (60 s),
 *       or per quarter of it when the move halves the count (a burst that ended). A count that has held for
 *       twice the interval comes down by the tolerance (10 %) instead, so a level is not overpaid for long. A
 *       finished tail of at most two replicas goes to zero in one move.</li>
 *   <li><b>The drain target follows the level now</b>: it keeps up with the arrival rate since the newest change of
 *       level the rate window shows beyond chance (a step, a stop; exact Poisson tails at low rates), not the
 *       window's mean, which decays through a whole window after a step down and cost one down-move per step of
 *       its decay.</li>
 *   <li><b>Capacity is remembered</b>: with no busy interval and no job time in the rate window, the busy
 *       measurement from the retained history (10 min) is used, and the reason says how old it is. A Kafka pool
 *       with slots to spare is never "busy", and forgetting its capacity made it scale down to its lag.</li>
 * </ul>
 *
 * <p>A benchmark against a simulation of KEDA + the HPA is in the test sources:
 * {@code dev.backstage.operator.scaling.sim.AutoscalingSimulation}.
 */
package dev.backstage.operator.scaling;
