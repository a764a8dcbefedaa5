package dev.backstage.e2e.bench;

/**
 * The manifests of one side of {@link KedaComparisonBenchmark}: a Secret with the Redis URL, a topology, a pool, and
 * for the KEDA side a {@code ScaledObject} on the pool's {@code /scale} subresource. Both pools are the same but for
 * who scales them.
 */
final class SideManifests {
    private SideManifests() {}

    static String of(Side side, String redisUrl, String jvmOptions, int workMs) {
        String autoscaling =
                side.keda() ? "  replicas: 1\n" : "  autoscaling: {enabled: true, minReplicas: 1, maxReplicas: 10}\n";
        String common = """
                apiVersion: v1
                kind: Secret
                metadata: {name: %1$s-redis}
                stringData: {url: "%2$s"}
                ---
                apiVersion: backstage.dev/v1alpha1
                kind: BackstageTopology
                metadata: {name: %1$s}
                spec:
                  provider: redis
                  connection: {secretName: %1$s-redis, key: url}
                  keyPrefix: %3$s
                  consumerGroup: workers
                  queues: [{name: default}]
                ---
                apiVersion: backstage.dev/v1alpha1
                kind: BackstageWorkerPool
                metadata: {name: %1$s}
                spec:
                  image: backstage-sample-tasks:0.1.0
                  topologyRef: {name: %1$s}
                  queues: [default]
                  concurrency: 5
                  prefetch: 20
                  resources: {limits: {cpu: "1", memory: 512Mi}}
                  env: [{name: BACKSTAGE_SAMPLE_WORK_MS, value: "%4$d"},
                        {name: JAVA_TOOL_OPTIONS, value: "%5$s"}]
                """.formatted(side.pool(), redisUrl, side.prefix(), workMs, jvmOptions) + autoscaling;
        if (!side.keda()) {
            return common;
        }
        // KEDA's defaults (pollingInterval 30 s, cooldownPeriod 300 s, the HPA's default behavior); the trigger's
        // documented default target. The address is host:port, as the scaler takes it.
        String address = redisUrl.replaceFirst("^redis://", "").replaceFirst("/.*$", "");
        return common + """
                ---
                apiVersion: keda.sh/v1alpha1
                kind: ScaledObject
                metadata: {name: %1$s}
                spec:
                  scaleTargetRef: {apiVersion: backstage.dev/v1alpha1, kind: BackstageWorkerPool, name: %1$s}
                  minReplicaCount: 1
                  maxReplicaCount: 10
                  triggers:
                  - type: redis-streams
                    metadata: {address: "%2$s", stream: "%3$s", consumerGroup: workers, pendingEntriesCount: "5"}
                """.formatted(side.pool(), address, side.stream());
    }
}
