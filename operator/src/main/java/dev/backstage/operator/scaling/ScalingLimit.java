package dev.backstage.operator.scaling;

/**
 * What bounded a decision, for the pool's {@code ScalingLimited} condition: anything but {@link #NONE} means
 * the backlog asked for a count the policy does not allow.
 */
public enum ScalingLimit {
    /** The desired count is what the backlog asks for. */
    NONE,
    /** The backlog asks for more than {@code maxReplicas}. */
    MAX_REPLICAS,
    /** The backlog asks for more replicas than the topic has partitions (Kafka); extra ones would sit idle. */
    PARTITIONS,
    /** The backlog asks for fewer than {@code minReplicas}. */
    MIN_REPLICAS;

    /** The condition reason in CamelCase, e.g. {@code MaxReplicas}. */
    public String conditionReason() {
        return switch (this) {
            case NONE -> "DesiredWithinRange";
            case MAX_REPLICAS -> "MaxReplicas";
            case PARTITIONS -> "PartitionCount";
            case MIN_REPLICAS -> "MinReplicas";
        };
    }
}
