package dev.backstage.runtime.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads dead-letter records by offset range with an assigned (group-less or committing) consumer, skipping what
 * {@link DeadLetterProgress} says is settled: every partition at once (list, redrive), one partition from an offset
 * (a page), or one record (a single-entry action). Each read stops at the partition's end as of when the progress
 * was read, or after {@link #READ_LIMIT}.
 */
final class DeadLetterReads {
    /** Upper bound on how long one read runs; reads stop early once they reach the end. */
    static final Duration READ_LIMIT = Duration.ofSeconds(60);

    private static final Duration POLL = Duration.ofMillis(200);

    private DeadLetterReads() {}

    /** Every partition from its first unsettled record to its end, up to {@code limit} records per partition. */
    static void allPartitions(
            KafkaConsumer<byte[], byte[]> consumer,
            DeadLetterProgress progress,
            List<ConsumerRecord<byte[], byte[]>> into,
            int limit) {
        Map<TopicPartition, DeadLetterProgress.Part> open = new HashMap<>();
        for (DeadLetterProgress.Part part : progress.partitions()) {
            if (part.unsettled() > 0) {
                open.put(part.tp, part);
            }
        }
        if (open.isEmpty()) {
            return;
        }
        consumer.assign(open.keySet());
        open.forEach((tp, part) -> consumer.seek(tp, part.from));
        Map<TopicPartition, Integer> taken = new HashMap<>();
        long deadline = System.nanoTime() + READ_LIMIT.toNanos();
        while (!open.isEmpty() && System.nanoTime() < deadline) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                DeadLetterProgress.Part part = open.get(tp);
                if (part == null
                        || r.offset() >= part.end
                        || progress.isSettled(tp, r.offset())
                        || taken.getOrDefault(tp, 0) >= limit) {
                    continue;
                }
                into.add(r);
                taken.merge(tp, 1, Integer::sum);
            }
            for (TopicPartition tp : List.copyOf(open.keySet())) {
                if (consumer.position(tp) >= open.get(tp).end || taken.getOrDefault(tp, 0) >= limit) {
                    open.remove(tp);
                    consumer.pause(List.of(tp));
                }
            }
        }
    }

    /**
     * Unsettled records of one partition from {@code offset} (inclusive) in offset order, until {@code into} holds
     * {@code limit} records or the partition ends.
     */
    static void onePartition(
            KafkaConsumer<byte[], byte[]> consumer,
            DeadLetterProgress progress,
            DeadLetterProgress.Part part,
            long offset,
            List<ConsumerRecord<byte[], byte[]>> into,
            int limit) {
        long from = Math.max(offset, part.from);
        if (from >= part.end || into.size() >= limit) {
            return;
        }
        consumer.assign(List.of(part.tp));
        consumer.seek(part.tp, from);
        long deadline = System.nanoTime() + READ_LIMIT.toNanos();
        while (into.size() < limit && consumer.position(part.tp) < part.end && System.nanoTime() < deadline) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                if (into.size() < limit && r.offset() < part.end && !progress.isSettled(part.tp, r.offset())) {
                    into.add(r);
                }
            }
        }
    }
}
