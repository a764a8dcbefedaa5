package dev.backstage.runtime.core;

import dev.backstage.runtime.api.TaskContext;
import dev.backstage.runtime.spi.Delivery;
import dev.backstage.runtime.spi.JobMeta;
import java.time.Instant;

/** The {@link TaskContext} a handler sees, backed by the provider's delivery. */
final class DeliveryContext implements TaskContext {
    private final Delivery delivery;
    private volatile boolean cancelled;

    DeliveryContext(Delivery delivery) {
        this.delivery = delivery;
    }

    @Override
    public String taskName() {
        return delivery.taskName();
    }

    @Override
    public String jobId() {
        return delivery.jobId();
    }

    @Override
    public int deliveryCount() {
        return delivery.deliveryCount();
    }

    @Override
    public String queue() {
        return delivery.queue();
    }

    @Override
    public Instant enqueuedAt() {
        return Instant.ofEpochMilli(delivery.enqueuedAtMs());
    }

    @Override
    public JobMeta meta() {
        return delivery.meta();
    }

    @Override
    public boolean isCancelled() {
        return cancelled || Thread.currentThread().isInterrupted();
    }

    void cancel() {
        cancelled = true;
    }
}
