package dev.backstage.runtime.spi;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Holds jobs until they are due, then hands them to a jobs capability. Supplied by the jobs provider
 * itself (Redis sorted set, RabbitMQ delay queues) or by another backend (Redis delays under Kafka).
 */
public interface DelaysCapability {
    /** Backend name for the capability report, e.g. {@code redis}. */
    String backend();

    /** Stores {@code job} until {@code runAt}; returns an id such as {@code scheduled:<ms>}. */
    String schedule(OutgoingJob job, Instant runAt);

    /**
     * Starts moving due jobs into {@code target}. Called once by the worker at start; the returned
     * handle is closed when the worker closes. Promotion is at-least-once. A handle that is also a
     * {@link Liveness} reports a promoter that stopped for good to the worker's health.
     */
    AutoCloseable startPromotion(JobsCapability target);

    /**
     * The jobs held for {@code queues}, one entry per queue (or a single entry with a null queue when the
     * backend cannot tell queues apart), or empty when this backend cannot count what it holds.
     */
    default Optional<List<DelayedBacklog>> delayed(List<String> queues) {
        return Optional.empty();
    }
}
