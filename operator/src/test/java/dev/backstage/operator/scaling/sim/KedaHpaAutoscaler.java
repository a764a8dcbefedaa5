package dev.backstage.operator.scaling.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * KEDA + the HorizontalPodAutoscaler, following their code paths:
 *
 * <p><b>KEDA</b> (scale loop, every pollingInterval): reads the scaler; active = metric > activation
 * threshold (0). Active and at 0 replicas → sets 1 (the HPA is disabled at 0). Inactive for
 * cooldownPeriod since the last active poll → sets 0. Everything between 1 and max is the HPA's.
 *
 * <p><b>HPA</b> (every sync period, skipped at 0 replicas): external metric with an AverageValue target:
 * {@code ratio = metric / (target * replicas)}; within tolerance ({@code |1 - ratio| <= 0.1}) the proposal
 * is the current count, else {@code ceil(metric / target)}. Stabilization: the proposal is bounded above by
 * the max of the proposals in the last 300 s (scale-down window) and below by the min over the scale-up
 * window (0 s, so the proposal itself). Rate limits: up to {@code max(start + 4, ceil(start * 2))} where
 * {@code start} is the replica count 15 s ago (net of this HPA's own scale events in the period, counted
 * strictly after the cutoff as the controller does); down 100 % per 15 s. Then [max(min,1), max].
 */
final class KedaHpaAutoscaler implements Autoscaler {
    private final KedaSettings settings;
    private final long kedaPhaseMs;
    private final long hpaPhaseMs;
    private final List<long[]> recommendations = new ArrayList<>();
    private final List<long[]> scaleUpEvents = new ArrayList<>();
    private final List<long[]> scaleDownEvents = new ArrayList<>();
    private long lastActiveMs = -1;
    private long cachedMetric;

    KedaHpaAutoscaler(KedaSettings settings, long kedaPhaseMs, long hpaPhaseMs) {
        this.settings = settings;
        this.kedaPhaseMs = kedaPhaseMs;
        this.hpaPhaseMs = hpaPhaseMs;
    }

    @Override
    public void tick(long nowMs, SimulatedCluster cluster) {
        if (due(nowMs, kedaPhaseMs, settings.pollingMs())) {
            kedaPoll(nowMs, cluster);
        }
        if (due(nowMs, hpaPhaseMs, settings.hpaSyncMs())) {
            hpaSync(nowMs, cluster);
        }
    }

    private static boolean due(long nowMs, long phaseMs, long periodMs) {
        return nowMs >= phaseMs && (nowMs - phaseMs) % periodMs == 0;
    }

    private long metric(SimulatedCluster cluster) {
        return settings.metric().value(cluster, settings.threshold(), settings.partitions());
    }

    private void kedaPoll(long nowMs, SimulatedCluster cluster) {
        long value = metric(cluster);
        cachedMetric = value;
        boolean active = value > 0;
        int replicas = cluster.desiredReplicas();
        if (active) {
            lastActiveMs = nowMs;
            if (replicas == 0) {
                cluster.setReplicas(Math.max(KedaSettings.MIN_REPLICA_COUNT, 1), nowMs);
            }
        } else if (replicas > 0 && lastActiveMs >= 0 && nowMs - lastActiveMs >= settings.cooldownMs()) {
            cluster.setReplicas(KedaSettings.MIN_REPLICA_COUNT, nowMs);
        }
    }

    private void hpaSync(long nowMs, SimulatedCluster cluster) {
        int current = cluster.desiredReplicas();
        if (current == 0) {
            return; // "ScalingDisabled: scaling is disabled since the replica count of the target is zero"
        }
        int hpaMin = Math.max(KedaSettings.MIN_REPLICA_COUNT, 1);
        int max = settings.maxReplicas();
        long value = settings.useCachedMetrics() ? cachedMetric : metric(cluster);
        double ratio = value / ((double) settings.threshold() * current);
        int proposal = Math.abs(1.0 - ratio) > settings.tolerance()
                ? (int) Math.ceil(value / (double) settings.threshold())
                : current;

        int stabilized = stabilize(nowMs, current, proposal);
        int desired = stabilized;
        if (stabilized > current) {
            int start = periodStartReplicas(nowMs, current, KedaSettings.SCALE_UP_PERIOD_MS);
            int byPods = start + KedaSettings.SCALE_UP_PODS;
            int byPercent = (int) Math.ceil(start * (1 + KedaSettings.SCALE_UP_PERCENT / 100));
            int limit = Math.max(current, Math.max(byPods, byPercent));
            desired = Math.min(stabilized, Math.min(max, limit));
        } else if (stabilized < current) {
            int start = periodStartReplicas(nowMs, current, KedaSettings.SCALE_DOWN_PERIOD_MS);
            int limit = Math.min(current, (int) (start * (1 - KedaSettings.SCALE_DOWN_PERCENT / 100)));
            desired = Math.max(stabilized, Math.max(hpaMin, limit));
        }
        desired = Math.max(hpaMin, Math.min(max, desired));
        if (desired != current) {
            cluster.setReplicas(desired, nowMs);
            (desired > current ? scaleUpEvents : scaleDownEvents).add(new long[] {nowMs, Math.abs(desired - current)});
        }
    }

    /** Max of the proposals in the scale-down window; the scale-up window is 0 s, so up goes to the proposal. */
    private int stabilize(long nowMs, int current, int proposal) {
        long downCutoff = nowMs - settings.scaleDownWindowMs();
        recommendations.removeIf(rec -> rec[0] <= downCutoff);
        int downRecommendation = proposal;
        for (long[] rec : recommendations) {
            downRecommendation = Math.max(downRecommendation, (int) rec[1]);
        }
        recommendations.add(new long[] {nowMs, proposal});
        int recommendation = current;
        if (recommendation < proposal) {
            recommendation = proposal;
        }
        if (recommendation > downRecommendation) {
            recommendation = downRecommendation;
        }
        return recommendation;
    }

    private int periodStartReplicas(long nowMs, int current, long periodMs) {
        long cutoff = nowMs - periodMs;
        long added = scaleUpEvents.stream()
                .filter(e -> e[0] > cutoff)
                .mapToLong(e -> e[1])
                .sum();
        long deleted = scaleDownEvents.stream()
                .filter(e -> e[0] > cutoff)
                .mapToLong(e -> e[1])
                .sum();
        return (int) (current - added + deleted);
    }
}
