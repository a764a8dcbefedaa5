package dev.backstage.runtime.core;

import dev.backstage.runtime.api.UnknownTaskPolicy;
import dev.backstage.runtime.spi.Backoff;
import java.time.Duration;
import java.util.List;

/** Immutable worker settings, validated by the builder. */
public record WorkerSettings(
        List<String> queues,
        String consumerId,
        int concurrency,
        int prefetch,
        int maxDeliveries,
        Backoff defaultBackoff,
        Duration shutdownGrace,
        UnknownTaskPolicy unknownTaskPolicy,
        Duration defaultHardTimeout) {
    public WorkerSettings {
        queues = List.copyOf(queues);
    }
}
