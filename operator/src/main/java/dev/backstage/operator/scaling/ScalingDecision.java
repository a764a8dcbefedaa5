package dev.backstage.operator.scaling;

import java.time.Duration;

/**
 * What the autoscaler wants for one pool now, and why. The operator writes {@code desiredReplicas} to the
 * Deployment (when it differs from the current count), {@code reason} to the pool status (last scale
 * reason / an Event), and sets {@code ScalingLimited} from {@code limitedBy}.
 *
 * @param currentReplicas  the replica count the decision started from
 * @param desiredReplicas  the replica count to run
 * @param direction        UP / DOWN / HOLD relative to {@code currentReplicas}
 * @param limitedBy        the policy bound that clipped the count, or {@link ScalingLimit#NONE}
 * @param reason           one human-readable sentence: the figures, the need, the action
 * @param backlogAvailable false when the newest sample could not be read (the decision then holds)
 * @param need             the newest sample's need ({@code null} when there is no usable sample)
 * @param probeAgainIn     when to measure again if sooner than the regular poll, else {@code null}: after a
 *                         scale-up decided on a regular poll, one quick extra sample measures the arrival rate
 *                         that made it (see {@link ScalingDecider#FOLLOW_UP})
 */
public record ScalingDecision(
        int currentReplicas,
        int desiredReplicas,
        ScalingDirection direction,
        ScalingLimit limitedBy,
        String reason,
        boolean backlogAvailable,
        ReplicaNeed need,
        Duration probeAgainIn) {

    /** True when the operator has to change the Deployment's replicas. */
    public boolean changesReplicas() {
        return desiredReplicas != currentReplicas;
    }

    /** True when a policy bound clipped the count: the {@code ScalingLimited} condition's status. */
    public boolean limited() {
        return limitedBy != ScalingLimit.NONE;
    }

    /** This decision, asking for the next measurement {@code after} from now. */
    public ScalingDecision probingAgainIn(Duration after) {
        return new ScalingDecision(
                currentReplicas, desiredReplicas, direction, limitedBy, reason, backlogAvailable, need, after);
    }
}
