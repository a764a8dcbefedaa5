package dev.backstage.runtime.rabbitmq;

import dev.backstage.runtime.spi.ConfigurationException;
import dev.backstage.runtime.spi.DelaysCapability;
import dev.backstage.runtime.spi.JobsCapability;
import dev.backstage.runtime.spi.OutgoingJob;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;

/**
 * Delays the broker keeps itself (the delayed-message exchange, or the TTL ladder): the broker moves a
 * job into its work queue when due, so there is no promotion loop, and scheduling completes when the
 * broker confirmed the delayed message.
 */
interface RabbitMqDelays extends DelaysCapability {
    /** Publishes {@code job} (carrying its job id) to wait until {@code runAt}; completes on the confirm. */
    CompletableFuture<Void> scheduleAsync(OutgoingJob job, Instant runAt);

    /** Declares what this delay path needs, for the declarer: exchanges, queues, bindings for {@code queues}. */
    java.util.List<dev.backstage.runtime.spi.DeclaredObject> declare(java.util.List<String> queues);

    java.util.List<dev.backstage.runtime.spi.DeclaredObject> inspect(java.util.List<String> queues);

    java.util.List<dev.backstage.runtime.spi.DeclaredObject> delete();

    RabbitMqJobs jobs();

    @Override
    default String schedule(OutgoingJob job, Instant runAt) {
        OutgoingJob withId = jobs().withJobId(job);
        ConfirmingPublisher.await(scheduleAsync(withId, runAt));
        return "scheduled:" + runAt.toEpochMilli();
    }

    /** The broker promotes due jobs itself; only RabbitMQ jobs can receive them. */
    @Override
    default AutoCloseable startPromotion(JobsCapability target) {
        if (target != jobs()) {
            throw new ConfigurationException("RabbitMQ's built-in delays (" + backend() + ") deliver into this "
                    + "provider's RabbitMQ queues only; supply a delays capability that can publish to "
                    + target.getClass().getSimpleName());
        }
        return () -> {}; // nothing runs on our side: the broker moves due messages into the work queue
    }
}
