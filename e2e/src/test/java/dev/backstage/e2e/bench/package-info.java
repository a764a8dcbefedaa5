/**
 * Benchmarks on the real local cluster (not tests: run by {@code bin/bench}, they print figures with both sides and
 * assert nothing): {@link dev.backstage.e2e.bench.ScaleFromZeroBenchmark},
 * {@link dev.backstage.e2e.bench.KedaComparisonBenchmark}.
 */
package dev.backstage.e2e.bench;
