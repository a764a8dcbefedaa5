package dev.backstage.operator.pool;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.apps.DeploymentStrategy;
import io.fabric8.kubernetes.api.model.apps.DeploymentStrategyBuilder;

/**
 * How a pool's Deployment replaces its pods when the pod template changes (image, env, config): a rolling update
 * that never has fewer consuming workers than asked for. {@code maxUnavailable: 0}: an old pod is told to stop
 * (SIGTERM) only once a new pod is Ready, so capacity holds through the rollout; {@code maxSurge: 25%} (at least one
 * pod, rounded up by the Deployment controller) bounds the extra pods and broker connections at a time.
 *
 * <p>A stopping worker stops fetching at once and lets its in-flight handlers finish for the pool's
 * {@code shutdownGracePeriod}; the pod's {@code terminationGracePeriodSeconds} is that plus
 * {@link dev.backstage.operator.workload.WorkerContainer#TERMINATION_MARGIN_SECONDS}, so the kubelet's SIGKILL never
 * comes while the runtime's grace still runs. A handler bounded by {@code hardTimeout} at most the grace always
 * finishes; a longer one is handed back to the broker unacked and runs again on another worker (counted as a
 * redelivery, not lost). No preStop hook: workers serve no traffic through a Service, so there is no endpoint
 * removal to wait for, and a preStop sleep would only delay the drain. The Deployment controller does not wait for a
 * terminating pod before the next step, so a long grace does not slow the rollout: old pods drain while new ones run.
 */
final class RolloutStrategy {
    static final String MAX_SURGE = "25%";

    private RolloutStrategy() {}

    static DeploymentStrategy rollingUpdate() {
        return new DeploymentStrategyBuilder()
                .withType("RollingUpdate")
                .withNewRollingUpdate()
                .withMaxSurge(new IntOrString(MAX_SURGE))
                .withMaxUnavailable(new IntOrString(0))
                .endRollingUpdate()
                .build();
    }
}
