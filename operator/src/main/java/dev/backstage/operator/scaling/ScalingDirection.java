package dev.backstage.operator.scaling;

/** Which way a decision moves the pool, relative to the replicas it has now. */
public enum ScalingDirection {
    UP,
    DOWN,
    HOLD
}
