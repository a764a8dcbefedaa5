package dev.backstage.runtime.spi;

import java.util.List;

/** Delivery of jobs: publish now, and consume queues into the core. */
public interface JobsCapability {
    /** Publishes a job for immediate delivery and returns the broker's id for it. */
    String publish(OutgoingJob job);

    /**
     * Starts fetching from {@code settings.queues()} and hands each delivery to {@code sink}. Fetching
     * must respect {@code settings.flow()}: never more deliveries outstanding than it has room for.
     */
    JobConsumer consume(ConsumerSettings settings, DeliverySink sink);

    /** The queues a worker reads when it configured none (Redis: urgent, default, low). */
    List<String> defaultQueues();

    /**
     * True when a retry with a delay needs a {@link DelaysCapability} (Kafka). Checked at start-up so
     * a worker without one fails before it takes work, not at its first failure.
     */
    default boolean retryNeedsDelays() {
        return false;
    }
}
