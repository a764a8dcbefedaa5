package dev.backstage.runtime.spi;

import java.util.Objects;

/**
 * A job on its way to a broker, in broker-neutral form.
 *
 * @param queue        queue name without prefix
 * @param payloadJson  the payload as JSON text
 * @param deliveryCount 1 for a new job; a retry copy carries the next count
 * @param jobId        stable logical id (null on a brand-new job: the provider assigns one where its
 *                     wire format carries it)
 */
public record OutgoingJob(
        String queue,
        String taskName,
        String payloadJson,
        long enqueuedAtMs,
        JobMeta meta,
        int deliveryCount,
        String jobId) {
    public OutgoingJob {
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(taskName, "taskName");
        payloadJson = payloadJson == null ? "null" : payloadJson;
        meta = meta == null ? JobMeta.NONE : meta;
        deliveryCount = Math.max(1, deliveryCount);
    }

    public static OutgoingJob fresh(String queue, String taskName, String payloadJson, JobMeta meta) {
        return new OutgoingJob(queue, taskName, payloadJson, System.currentTimeMillis(), meta, 1, null);
    }

    /** The copy a retry publishes: same job id, next delivery count. */
    public OutgoingJob retryCopy(int nextDeliveryCount, String stableJobId) {
        return new OutgoingJob(queue, taskName, payloadJson, enqueuedAtMs, meta, nextDeliveryCount, stableJobId);
    }
}
