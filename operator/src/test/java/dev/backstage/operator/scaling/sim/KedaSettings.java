package dev.backstage.operator.scaling.sim;

/**
 * A ScaledObject with KEDA's defaults and the HPA's (kube-controller-manager) defaults.
 *
 * @param pollingMs          KEDA pollingInterval (30 s): activation 0→1 and the cooldown check
 * @param cooldownMs         KEDA cooldownPeriod (300 s): inactive this long before 1+→0
 * @param useCachedMetrics   KEDA trigger useCachedMetrics (default false: every HPA request queries the
 *                           scaler afresh; true: the HPA reads the value KEDA's last poll fetched)
 * @param hpaSyncMs          --horizontal-pod-autoscaler-sync-period (15 s)
 * @param tolerance          --horizontal-pod-autoscaler-tolerance (0.1)
 * @param scaleDownWindowMs  behavior.scaleDown.stabilizationWindowSeconds (300 s; max of recommendations)
 * @param threshold          target AverageValue per replica (lagThreshold / value / listLength)
 * @param maxReplicas        maxReplicaCount
 * @param metric             what the scaler reports
 * @param partitions         partition count for the Kafka cap, 0 otherwise
 */
record KedaSettings(
        long pollingMs,
        long cooldownMs,
        boolean useCachedMetrics,
        long hpaSyncMs,
        double tolerance,
        long scaleDownWindowMs,
        long threshold,
        int maxReplicas,
        KedaMetric metric,
        int partitions) {

    /** behavior.scaleUp default policies: 4 pods or 100 % per 15 s, selectPolicy Max; no up-window. */
    static final int SCALE_UP_PODS = 4;

    static final double SCALE_UP_PERCENT = 100;
    static final long SCALE_UP_PERIOD_MS = 15_000;
    /** behavior.scaleDown default policy: 100 % per 15 s. */
    static final double SCALE_DOWN_PERCENT = 100;

    static final long SCALE_DOWN_PERIOD_MS = 15_000;
    /** KEDA's minReplicaCount 0; it gives the HPA minReplicas max(minReplicaCount, 1). */
    static final int MIN_REPLICA_COUNT = 0;

    static KedaSettings defaults(long threshold, int maxReplicas, KedaMetric metric, int partitions) {
        return new KedaSettings(
                30_000, 300_000, false, 15_000, 0.1, 300_000, threshold, maxReplicas, metric, partitions);
    }

    KedaSettings withCachedMetrics() {
        return new KedaSettings(
                pollingMs,
                cooldownMs,
                true,
                hpaSyncMs,
                tolerance,
                scaleDownWindowMs,
                threshold,
                maxReplicas,
                metric,
                partitions);
    }

    KedaSettings withMetric(KedaMetric other) {
        return new KedaSettings(
                pollingMs,
                cooldownMs,
                useCachedMetrics,
                hpaSyncMs,
                tolerance,
                scaleDownWindowMs,
                threshold,
                maxReplicas,
                other,
                partitions);
    }
}
