package dev.backstage.operator.scaling.sim;

import dev.backstage.operator.scaling.BacklogSample;
import dev.backstage.operator.scaling.SampleHistory;
import dev.backstage.operator.scaling.ScalingDecider;
import dev.backstage.operator.scaling.ScalingDecision;
import dev.backstage.operator.scaling.ScalingPolicy;
import java.time.Instant;

/**
 * Our operator's loop, as it will run for a pool: poll the backlog every {@code pollMs}, append the sample,
 * ask {@link ScalingDecider}, write the Deployment's replicas at once when they change.
 *
 * <p>Polls are scheduled like {@code BacklogMonitor} does: each one schedules the next {@code pollMs} after it,
 * or {@link ScalingDecision#probeAgainIn()} after it when the decision asks for a quick follow-up.
 *
 * <p>The sample carries what a provider probe can report: undelivered and in-flight counts (on Kafka the
 * lag, which already holds the uncommitted in-flight records, so in flight is 0), the ready replicas, and the
 * broker's arrival counter (stream entries-added / sum of end offsets) for the drain target.
 */
final class BackstageAutoscaler implements Autoscaler {
    private final ScalingPolicy policy;
    private final long pollMs;
    private final long phaseMs;
    private final ScalingDecider decider = new ScalingDecider();
    private SampleHistory history = SampleHistory.empty();
    private long nextPollMs;

    BackstageAutoscaler(ScalingPolicy policy, long pollMs, long phaseMs) {
        this.policy = policy;
        this.pollMs = pollMs;
        this.phaseMs = phaseMs;
        this.nextPollMs = phaseMs;
    }

    @Override
    public void tick(long nowMs, SimulatedCluster cluster) {
        if (nowMs < nextPollMs) {
            return;
        }
        Instant at = Instant.EPOCH.plusMillis(nowMs);
        int ready = cluster.readyReplicas(nowMs);
        BacklogSample sample = cluster.workload().partitioned()
                ? BacklogSample.measured(at, cluster.queued() + cluster.inFlight(), 0, ready,
                        cluster.arrivedTotal(), null)
                : BacklogSample.measured(at, cluster.queued(), cluster.inFlight(), ready, cluster.arrivedTotal(), null);
        history = history.append(sample, policy.historyRetention());
        ScalingDecision decision = decider.decide(policy, cluster.desiredReplicas(), history);
        if (decision.changesReplicas()) {
            cluster.setReplicas(decision.desiredReplicas(), nowMs);
        }
        // Like the monitor: the next poll is scheduled when this one ends, sooner if the decision asks for it.
        nextPollMs = nowMs + (decision.probeAgainIn() == null ? pollMs
                : Math.min(pollMs, decision.probeAgainIn().toMillis()));
    }
}
