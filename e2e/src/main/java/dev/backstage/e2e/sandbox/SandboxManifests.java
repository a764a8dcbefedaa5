package dev.backstage.e2e.sandbox;

/** The resources the sandbox applies, as a user would write them. */
public final class SandboxManifests {
    private SandboxManifests() {}

    public static String redis(String url, String prefix) {
        return redis(url, prefix, "backstage-sample-tasks:0.1.0");
    }

    /**
     * A Secret, a Redis topology {@code shop-redis} with a once-a-minute schedule, and an autoscaled pool
     * {@code shop-workers} of {@code image}.
     */
    public static String redis(String url, String prefix, String image) {
        return """
                apiVersion: v1
                kind: Secret
                metadata: {name: shop-redis}
                stringData: {url: "%s"}
                ---
                apiVersion: backstage.dev/v1alpha1
                kind: BackstageTopology
                metadata: {name: shop-redis}
                spec:
                  provider: redis
                  connection: {secretName: shop-redis, key: url}
                  keyPrefix: %s
                  consumerGroup: shop-workers
                  queues: [{name: default}]
                  deadLetter: true
                  schedules:
                    - {name: minute-report, schedule: "* * * * *", task: dailyReport, queue: default,
                       payload: [{format: pdf}], startingDeadlineSeconds: 30}
                ---
                apiVersion: backstage.dev/v1alpha1
                kind: BackstageWorkerPool
                metadata: {name: shop-workers}
                spec:
                  image: %s
                  topologyRef: {name: shop-redis}
                  queues: [default]
                  concurrency: 8
                  maxRetries: 2
                  retryBackoff: {type: fixed, delay: 200ms}
                  shutdownGracePeriod: 10s
                  env: [{name: BACKSTAGE_SAMPLE_WORK_MS, value: "40"}]
                  autoscaling:
                    enabled: true
                    minReplicas: 1
                    maxReplicas: 4
                    targetBacklogPerReplica: 250
                    pollInterval: 2s
                    scaleDownWindow: 15s
                """.formatted(url, prefix, image);
    }
}
