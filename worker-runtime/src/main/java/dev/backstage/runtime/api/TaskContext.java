package dev.backstage.runtime.api;

import dev.backstage.runtime.spi.JobMeta;
import java.time.Instant;

/** What a handler knows about the delivery it is running. */
public interface TaskContext {
    String taskName();

    /**
     * A stable id for the logical job, the same on every redelivery and retry of it: use it as the
     * idempotency key at the boundary where a duplicate would hurt (delivery is at-least-once).
     */
    String jobId();

    /** 1 on the first delivery, then 2, 3, … across retries and redeliveries. */
    int deliveryCount();

    String queue();

    Instant enqueuedAt();

    JobMeta meta();

    /** True once the worker asked the handler to stop (hard timeout or shutdown past its grace). */
    boolean isCancelled();
}
