package dev.backstage.runtime.spi;

import java.util.List;

/**
 * Outstanding work on one queue.
 *
 * @param undelivered    waiting and not yet handed to any consumer (stream lag, ready messages, lag)
 * @param inFlight       handed out and not yet settled (pending entries, unacked messages); -1 if unknown
 * @param deadLetters    entries in the queue's dead-letter destination
 * @param oldestAgeMs    age of the oldest outstanding entry where the broker can tell, else null
 * @param partitions     per-partition figures (Kafka), else empty
 * @param note           how a figure was obtained when it is not exact (e.g. "lag counted from log start")
 * @param enqueuedTotal  cumulative count of jobs ever added to the queue (Redis: the stream's entries-added),
 *                       or null when the broker cannot tell. A counter: only differences between two
 *                       measurements mean something (the operator's autoscaler turns them into rates)
 * @param completedTotal cumulative count of jobs the consumer group has settled (Redis: the group's
 *                       entries-read minus its pending entries), or null when the broker cannot tell
 */
public record QueueBacklog(
        String queue,
        long undelivered,
        long inFlight,
        long deadLetters,
        Long oldestAgeMs,
        List<PartitionBacklog> partitions,
        String note,
        Long enqueuedTotal,
        Long completedTotal) {
    public QueueBacklog {
        partitions = partitions == null ? List.of() : List.copyOf(partitions);
    }

    /** Without the cumulative counters (brokers that cannot count them). */
    public QueueBacklog(
            String queue,
            long undelivered,
            long inFlight,
            long deadLetters,
            Long oldestAgeMs,
            List<PartitionBacklog> partitions,
            String note) {
        this(queue, undelivered, inFlight, deadLetters, oldestAgeMs, partitions, note, null, null);
    }

    public long outstanding() {
        return undelivered + Math.max(0, inFlight);
    }

    /** Lag of one Kafka partition. */
    public record PartitionBacklog(int partition, long endOffset, long committedOffset, long lag) {}
}
