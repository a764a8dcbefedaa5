package dev.backstage.operator.main;

/**
 * The JVM's common fork-join pool, sized so that {@code CompletableFuture}'s default async executor is a pool.
 *
 * <p>With one CPU (the chart's limit: the JVM sees {@code availableProcessors() == 1}) the common pool's parallelism
 * is 1 or less, and {@code CompletableFuture} then runs every {@code *Async} stage without an executor on a new
 * thread of its own. The Kubernetes client's HTTP responses complete through such stages: at 1,000 pools the
 * operator started about 70 threads a second, one per API response ({@code bin/bench operator-scale}, JFR
 * {@code jdk.ThreadStart}). Two threads make the pool real; they run short completions, not reconciles.
 */
final class CommonPool {
    static final String PARALLELISM = "java.util.concurrent.ForkJoinPool.common.parallelism";
    /** The smallest parallelism for which {@code CompletableFuture} uses the common pool instead of a thread per task. */
    static final int MINIMUM = 2;

    private CommonPool() {}

    /**
     * Sets the common pool's parallelism to {@link #MINIMUM} when the JVM would otherwise make it smaller and no
     * {@code -D} chose it. Must run before anything touches the common pool (first thing in main).
     */
    static void sizeForAsyncCompletions() {
        if (System.getProperty(PARALLELISM) == null && Runtime.getRuntime().availableProcessors() - 1 < MINIMUM) {
            System.setProperty(PARALLELISM, String.valueOf(MINIMUM));
        }
    }
}
