package dev.backstage.runtime.core;

import dev.backstage.runtime.api.WorkerTotals;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The worker's meters: deliveries, acks, retries, dead letters, handler run time and in-flight (names
 * prefixed {@code backstage_}), also read as plain totals by the demo and tests.
 *
 * <p>Each event costs one {@link LongAdder} increment on the handler thread (striped: no contention between
 * handler threads); the registry reads the adders when it is scraped ({@link FunctionCounter},
 * {@link FunctionTimer}). The handler run time is therefore a count and a sum ({@code _seconds_count},
 * {@code _seconds_sum}: the mean per scrape interval), not a per-job histogram: recording each job into a
 * timer with a time-window max and buckets cost more CPU than a no-op job itself.
 */
public final class WorkerMetrics {
    private final LongAdder deliveries = new LongAdder();
    private final LongAdder acks = new LongAdder();
    private final LongAdder retries = new LongAdder();
    private final LongAdder deadLetters = new LongAdder();
    private final LongAdder chained = new LongAdder();
    private final LongAdder handlerRuns = new LongAdder();
    private final LongAdder handlerNanos = new LongAdder();

    public WorkerMetrics(MeterRegistry registry, Supplier<Number> inFlight) {
        counter(registry, "backstage_deliveries", "deliveries received", deliveries);
        counter(registry, "backstage_acks", "deliveries acked", acks);
        counter(registry, "backstage_retries", "deliveries sent to retry", retries);
        counter(registry, "backstage_dead_letters", "deliveries dead-lettered", deadLetters);
        counter(registry, "backstage_chained", "next tasks enqueued by handlers", chained);
        FunctionTimer.builder(
                        "backstage_handler_latency",
                        this,
                        m -> m.handlerRuns.sum(),
                        m -> m.handlerNanos.sum(),
                        TimeUnit.NANOSECONDS)
                .description("handler run time")
                .register(registry);
        Gauge.builder("backstage_in_flight", inFlight)
                .description("deliveries being handled")
                .register(registry);
    }

    private static void counter(MeterRegistry registry, String name, String description, LongAdder adder) {
        FunctionCounter.builder(name, adder, LongAdder::sum)
                .description(description)
                .register(registry);
    }

    void delivered(int n) {
        deliveries.add(n);
    }

    void acked() {
        acks.increment();
    }

    void retried() {
        retries.increment();
    }

    void deadLettered() {
        deadLetters.increment();
    }

    void chained() {
        chained.increment();
    }

    void handlerTook(long nanos) {
        handlerRuns.increment();
        handlerNanos.add(nanos);
    }

    /** Totals since start, for progress lines and tests. */
    public WorkerTotals totals() {
        return new WorkerTotals(deliveries.sum(), acks.sum(), retries.sum(), deadLetters.sum());
    }
}
