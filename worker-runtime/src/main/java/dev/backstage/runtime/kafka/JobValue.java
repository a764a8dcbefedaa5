package dev.backstage.runtime.kafka;

import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.OutgoingJob;

/**
 * A job as a Kafka record value carries it (docs/wire-format.md):
 * {@code {"taskName","payload":<JSON>,"enqueuedAt":ms,"meta":{…},"deliveryCount":n,"jobId"?}}.
 *
 * @param payloadJson  the payload's JSON text, byte for byte as it appeared in the value
 * @param enqueuedAtMs null when the value carried none
 * @param jobId        null when the value carried none (a seed producer)
 */
public record JobValue(
        String taskName, String payloadJson, Long enqueuedAtMs, JobMeta meta, int deliveryCount, String jobId) {

    /** This job on its way to {@code queue}, keeping its delivery count and job id. */
    public OutgoingJob toOutgoing(String queue, long fallbackEnqueuedAtMs, String stableJobId) {
        return new OutgoingJob(
                queue,
                taskName,
                payloadJson,
                enqueuedAtMs == null ? fallbackEnqueuedAtMs : enqueuedAtMs,
                meta,
                deliveryCount,
                stableJobId);
    }
}
