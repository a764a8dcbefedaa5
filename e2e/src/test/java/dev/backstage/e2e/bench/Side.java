package dev.backstage.e2e.bench;

/**
 * One side of {@link KedaComparisonBenchmark}: a pool (named as the side) with its own topology and Redis key prefix.
 *
 * @param name   {@code ours} (our operator's autoscaler) or {@code keda} (a KEDA ScaledObject)
 * @param prefix the topology's Redis key prefix; the pool's stream is {@code <prefix>:default}
 */
record Side(String name, String prefix) {
    String pool() {
        return name;
    }

    String stream() {
        return prefix + ":default";
    }

    boolean keda() {
        return "keda".equals(name);
    }
}
