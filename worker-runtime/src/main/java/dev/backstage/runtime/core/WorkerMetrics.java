package dev.backstage.runtime.core;

import dev.backstage.runtime.api.WorkerTotals;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The worker's meters: deliveries, acks, retries, dead letters, handler latency and in-flight
 * (names prefixed {@code backstage_}). Kept alongside plain counters so the demo and tests can read
 * totals without a registry.
 */
public final class WorkerMetrics {
    private final Counter deliveries;
    private final Counter acks;
    private final Counter retries;
    private final Counter deadLetters;
    private final Counter chained;
    private final Timer handlerLatency;
    private final AtomicLong ackCount = new AtomicLong();
    private final AtomicLong retryCount = new AtomicLong();
    private final AtomicLong deadLetterCount = new AtomicLong();
    private final AtomicLong deliveryCount = new AtomicLong();

    public WorkerMetrics(MeterRegistry registry, Supplier<Number> inFlight) {
        deliveries = Counter.builder("backstage_deliveries").description("deliveries received").register(registry);
        acks = Counter.builder("backstage_acks").description("deliveries acked").register(registry);
        retries = Counter.builder("backstage_retries").description("deliveries sent to retry").register(registry);
        deadLetters = Counter.builder("backstage_dead_letters").description("deliveries dead-lettered")
                .register(registry);
        chained = Counter.builder("backstage_chained").description("next tasks enqueued by handlers")
                .register(registry);
        handlerLatency = Timer.builder("backstage_handler_latency").description("handler run time")
                .publishPercentileHistogram().register(registry);
        Gauge.builder("backstage_in_flight", inFlight).description("deliveries being handled").register(registry);
    }

    void delivered() {
        deliveries.increment();
        deliveryCount.incrementAndGet();
    }

    void acked() {
        acks.increment();
        ackCount.incrementAndGet();
    }

    void retried() {
        retries.increment();
        retryCount.incrementAndGet();
    }

    void deadLettered() {
        deadLetters.increment();
        deadLetterCount.incrementAndGet();
    }

    void chained() {
        chained.increment();
    }

    void handlerTook(Duration duration) {
        handlerLatency.record(duration);
    }

    /** Totals since start, for progress lines and tests. */
    public WorkerTotals totals() {
        return new WorkerTotals(deliveryCount.get(), ackCount.get(), retryCount.get(), deadLetterCount.get());
    }
}
