package dev.backstage.runtime.kafka;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Which entries of a dead-letter topic are settled: per partition, everything below the redrive group's committed
 * offset (redriven in order) and, beyond it, the offsets settled one by one (redriven alone or deleted by the console
 * or the CLI), carried in that commit's metadata as {@link CommitMetadata} encodes it.
 *
 * <p>Kafka cannot delete one record, so a single settled record stays in the log and these markers make list,
 * count, page and redrive skip it. When the oldest unsettled record is settled the committed offset moves past it
 * and past every marker that follows without a gap, and the records below are then deleted with
 * {@code deleteRecords}. A marker can lie at most {@link #CAPACITY} offsets past the committed one (what fits in the
 * broker's 4,096-byte commit metadata); beyond that a single-entry action is refused with a message saying so.
 * Pure apart from {@link #read}.
 */
final class DeadLetterProgress {
    /** How far past a partition's committed offset a single settled entry can be recorded. */
    static final int CAPACITY = (CommitMetadata.MAX_CHARS - CommitMetadata.PREFIX.length()) / 4 * 3 * 8;

    /** One partition: its readable range {@code [from, end)} and the offsets settled one by one inside it. */
    static final class Part {
        final TopicPartition tp;
        long from;
        final long end;
        final TreeSet<Long> settled = new TreeSet<>();

        Part(TopicPartition tp, long from, long end) {
            this.tp = tp;
            this.from = from;
            this.end = end;
        }

        long unsettled() {
            return Math.max(0, end - from - settled.size());
        }
    }

    private final Map<TopicPartition, Part> parts = new TreeMap<>(Comparator.comparingInt(TopicPartition::partition));

    /** The topic's progress as the broker holds it now; no partitions when the topic does not exist. */
    static DeadLetterProgress read(KafkaOffsets offsets, String group, String topic)
            throws ExecutionException, TimeoutException, InterruptedException {
        DeadLetterProgress progress = new DeadLetterProgress();
        List<TopicPartition> partitions = offsets.partitions(List.of(topic)).get(topic);
        if (partitions == null) {
            return progress;
        }
        Map<TopicPartition, Long> start = offsets.startOffsets(partitions);
        Map<TopicPartition, Long> end = offsets.endOffsets(partitions);
        Map<TopicPartition, OffsetAndMetadata> committed = offsets.committed(group);
        for (TopicPartition tp : partitions) {
            progress.add(tp, start.getOrDefault(tp, 0L), end.getOrDefault(tp, 0L), committed.get(tp));
        }
        return progress;
    }

    /** Adds a partition from its log start and end and the redrive group's commit on it (null: none). */
    void add(TopicPartition tp, long start, long end, OffsetAndMetadata commit) {
        Part part = new Part(tp, commit == null ? start : Math.max(start, commit.offset()), end);
        if (commit != null) {
            for (long offset : CommitMetadata.decode(commit.offset(), commit.metadata())) {
                if (offset >= part.from && offset < end) {
                    part.settled.add(offset);
                }
            }
        }
        parts.put(tp, part);
    }

    /** The partitions, by partition number. */
    Collection<Part> partitions() {
        return parts.values();
    }

    Part part(TopicPartition tp) {
        return parts.get(tp);
    }

    /** Whether the record is settled (below the committed offset, or marked); false for a partition not read. */
    boolean isSettled(TopicPartition tp, long offset) {
        Part part = parts.get(tp);
        return part != null && (offset < part.from || part.settled.contains(offset));
    }

    /** Entries still dead-lettered. */
    long unsettled() {
        return parts.values().stream().mapToLong(Part::unsettled).sum();
    }

    /**
     * Marks the record settled and returns the commit that records it for the redrive group: the committed offset
     * moved past it when it was the oldest unsettled one, else the same offset with the marker added.
     *
     * @throws UnsupportedOperationException when the record lies more than {@link #CAPACITY} past the committed one
     */
    OffsetAndMetadata settle(TopicPartition tp, long offset) {
        Part part = parts.get(tp);
        if (part == null) {
            throw new IllegalArgumentException("partition " + tp + " was not read");
        }
        if (offset >= part.from) {
            if (offset - part.from >= CAPACITY) {
                throw new UnsupportedOperationException("entry " + tp + ":" + offset + " lies more than " + CAPACITY
                        + " entries past the oldest dead letter of its partition, further than Kafka can record a"
                        + " single settled entry; redrive all (or the older entries) first");
            }
            part.settled.add(offset);
            while (part.settled.remove(part.from)) {
                part.from++;
            }
        }
        List<Long> beyond = new ArrayList<>(part.settled);
        long[] offsets = beyond.stream().mapToLong(Long::longValue).toArray();
        return new OffsetAndMetadata(part.from, CommitMetadata.encode(part.from, offsets));
    }
}
