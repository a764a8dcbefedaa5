package dev.backstage.runtime.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.backstage.runtime.spi.Backoff;
import dev.backstage.runtime.spi.BroadcastCapability;
import dev.backstage.runtime.spi.DedupeCapability;
import dev.backstage.runtime.spi.DelaysCapability;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.TopicsCapability;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;

/**
 * A validated {@link Worker.Builder}, as a {@link WorkerFactory} receives it. {@code delays}, {@code dedupe},
 * {@code topics}, {@code broadcast}, {@code hardTimeout}, {@code meterRegistry} and {@code objectMapper} may be
 * null (not supplied); {@code owned} are the supplied capabilities the worker closes with itself.
 */
public record WorkerOptions(
        Provider provider,
        DelaysCapability delays,
        DedupeCapability dedupe,
        TopicsCapability topics,
        BroadcastCapability broadcast,
        List<AutoCloseable> owned,
        List<String> queues,
        String consumerId,
        int concurrency,
        int prefetch,
        int maxDeliveries,
        Backoff backoff,
        Duration shutdownGrace,
        UnknownTaskPolicy unknownTaskPolicy,
        Duration hardTimeout,
        MeterRegistry meterRegistry,
        ObjectMapper objectMapper) {
    /** Deliveries of a failing job before it is dead-lettered, unless the task or the job says otherwise. */
    public static final int DEFAULT_MAX_DELIVERIES = 5;
    /** The back-off between retries, unless the task or the job says otherwise. */
    public static final Backoff DEFAULT_BACKOFF = Backoff.exponential(Duration.ofSeconds(1), Duration.ofMinutes(5));
}
