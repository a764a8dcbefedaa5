package dev.backstage.operator.autoscaler;

import dev.backstage.operator.scaling.BacklogSample;
import dev.backstage.runtime.spi.BacklogReport;
import dev.backstage.runtime.spi.QueueBacklog;
import java.time.Instant;
import java.util.Objects;

/**
 * One poll of a pool's backlog: the provider's report, or why there is none. An unavailable measurement carries no
 * figures at all, so nothing downstream can mistake it for an empty queue.
 *
 * @param at       when it was taken
 * @param report   the probe's report, {@code null} when unavailable
 * @param provider the provider that measured (for messages), {@code null} when none was reached
 * @param reason   CamelCase word for the BacklogAvailable condition when unavailable, else {@code null}
 * @param message  what went wrong, credentials scrubbed, when unavailable, else {@code null}
 */
public record BacklogMeasurement(Instant at, BacklogReport report, String provider, String reason, String message) {
    public BacklogMeasurement {
        Objects.requireNonNull(at, "at");
        if (report == null) {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(message, "message");
        }
    }

    public static BacklogMeasurement measured(BacklogReport report, String provider) {
        return new BacklogMeasurement(report.measuredAt(), report, provider, null, null);
    }

    public static BacklogMeasurement unavailable(Instant at, String reason, String message) {
        return new BacklogMeasurement(at, null, null, reason, message);
    }

    public boolean available() {
        return report != null;
    }

    /**
     * The autoscaler's view. The cumulative counters are summed over the queues only when every queue has one
     * (a partial sum would read as a rate jump when a queue's counter appears); Kafka's arrivals are the sum of
     * its partitions' end offsets, its completions the sum of their committed positions.
     */
    public BacklogSample toSample(int readyReplicas) {
        if (!available()) {
            return BacklogSample.unavailable(at, readyReplicas, reason, message);
        }
        return BacklogSample.of(report, readyReplicas, arrived(), completed());
    }

    private Long arrived() {
        long sum = 0;
        for (QueueBacklog queue : report.queues()) {
            if (queue.enqueuedTotal() != null) {
                sum += queue.enqueuedTotal();
            } else if (!queue.partitions().isEmpty()) {
                sum += queue.partitions().stream().mapToLong(QueueBacklog.PartitionBacklog::endOffset).sum();
            } else {
                return null;
            }
        }
        return report.queues().isEmpty() ? null : sum;
    }

    /**
     * Kafka's completions are its partitions' committed positions, {@code end offset - lag} (the group commits only
     * past settled records; a partition without a commit counts from where its lag is counted): so completions are
     * told from the committed-offset rate and arrivals from the end-offset rate, and records being processed are
     * neither.
     */
    private Long completed() {
        long sum = 0;
        for (QueueBacklog queue : report.queues()) {
            if (queue.completedTotal() != null) {
                sum += queue.completedTotal();
            } else if (!queue.partitions().isEmpty()) {
                sum += queue.partitions().stream().mapToLong(p -> p.endOffset() - p.lag()).sum();
            } else {
                return null;
            }
        }
        return report.queues().isEmpty() ? null : sum;
    }
}
