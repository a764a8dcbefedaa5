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
    private final long statsRefreshMs;
    private SampleHistory history = SampleHistory.empty();
    private long nextPollMs;
    private long nextRefreshMs;
    private BrokerFigures figures = new BrokerFigures(0, 0, 0);

    /** What the broker reports: live, or as of its last statistics refresh. */
    private record BrokerFigures(long queued, long inFlight, long arrivedTotal) {}

    BackstageAutoscaler(ScalingPolicy policy, long pollMs, long phaseMs) {
        this(policy, pollMs, phaseMs, 0, 0);
    }

    /**
     * @param statsRefreshMs 0: the probe reads live figures (Redis). Otherwise the broker reports its queue
     *                       figures and counters as of its last statistics refresh, every this many ms, at
     *                       {@code statsPhaseMs} (RabbitMQ's management API: 5 s by default)
     */
    BackstageAutoscaler(ScalingPolicy policy, long pollMs, long phaseMs, long statsRefreshMs, long statsPhaseMs) {
        this.policy = policy;
        this.pollMs = pollMs;
        this.phaseMs = phaseMs;
        this.nextPollMs = phaseMs;
        this.statsRefreshMs = statsRefreshMs;
        this.nextRefreshMs = statsPhaseMs;
    }

    @Override
    public void tick(long nowMs, SimulatedCluster cluster) {
        if (statsRefreshMs == 0 || nowMs >= nextRefreshMs) {
            figures = new BrokerFigures(cluster.queued(), cluster.inFlight(), cluster.arrivedTotal());
            nextRefreshMs = nowMs + statsRefreshMs;
        }
        if (nowMs < nextPollMs) {
            return;
        }
        Instant at = Instant.EPOCH.plusMillis(nowMs);
        int ready = cluster.readyReplicas(nowMs); // from the Deployment's status: live
        BacklogSample sample = cluster.workload().partitioned()
                ? BacklogSample.measured(
                        at, figures.queued() + figures.inFlight(), 0, ready, figures.arrivedTotal(), null)
                : BacklogSample.measured(at, figures.queued(), figures.inFlight(), ready, figures.arrivedTotal(), null);
        history = history.append(sample.withAskedReplicas(cluster.desiredReplicas()), policy.historyRetention());
        ScalingDecision decision = decider.decide(policy, cluster.desiredReplicas(), history);
        if (decision.changesReplicas() && System.getenv("SIM_DEBUG") != null) {
            System.out.println("  @" + nowMs / 1000.0 + " " + decision.reason());
        }
        if (decision.changesReplicas()) {
            cluster.setReplicas(decision.desiredReplicas(), nowMs);
        }
        // Like the monitor: the next poll is scheduled when this one ends, sooner if the decision asks for it.
        nextPollMs = nowMs
                + (decision.probeAgainIn() == null
                        ? pollMs
                        : Math.min(pollMs, decision.probeAgainIn().toMillis()));
    }
}
