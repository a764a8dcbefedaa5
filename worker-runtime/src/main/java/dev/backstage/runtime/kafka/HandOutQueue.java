package dev.backstage.runtime.kafka;

import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.PriorityQueue;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Records fetched but not yet handed out, in fetch order, and records to hand out again later (redeliveries),
 * each due at a time; due redeliveries go first. Poll thread only.
 */
final class HandOutQueue {
    record Pending(PartitionState state, ConsumerRecord<byte[], byte[]> record, int redeliveries) {}

    private record Delayed(long dueNanos, Pending pending) {}

    private final ArrayDeque<Pending> buffer = new ArrayDeque<>();
    private final PriorityQueue<Delayed> delayed = new PriorityQueue<>(Comparator.comparingLong(Delayed::dueNanos));

    void add(PartitionState state, ConsumerRecord<byte[], byte[]> record) {
        buffer.addLast(new Pending(state, record, 0));
    }

    void redeliverAt(long dueNanos, PartitionState state, ConsumerRecord<byte[], byte[]> record, int redeliveries) {
        delayed.add(new Delayed(dueNanos, new Pending(state, record, redeliveries)));
    }

    /** Moves redeliveries whose time has come to the front. */
    void promoteDue(long nowNanos) {
        while (!delayed.isEmpty() && delayed.peek().dueNanos() - nowNanos <= 0) {
            Pending p = delayed.poll().pending();
            if (!p.state().released) {
                buffer.addFirst(p);
            }
        }
    }

    boolean isEmpty() {
        return buffer.isEmpty();
    }

    int size() {
        return buffer.size();
    }

    Pending next() {
        return buffer.pollFirst();
    }

    /** Forgets the records of partitions that left this consumer. */
    void dropReleased() {
        buffer.removeIf(p -> p.state().released);
        delayed.removeIf(d -> d.pending().state().released);
    }
}
