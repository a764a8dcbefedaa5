package dev.backstage.runtime.kafka;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitions one consumer owns and everything it keeps about them: each one's {@link PartitionState}
 * (settled offsets, records in flight, commit progress), the records fetched and not yet handed out
 * ({@link HandOutQueue}), which partitions are paused ({@link PartitionPauses}) and the total in flight. The
 * poll loop fetches into it, hands out of it and commits what it holds; the {@link RebalanceListener} assigns
 * and releases partitions through it. Poll thread only.
 */
final class AssignedPartitions {
    private static final Logger log = LoggerFactory.getLogger(AssignedPartitions.class);

    private final String name;
    private final Map<TopicPartition, PartitionState> partitions = new LinkedHashMap<>();
    private final HandOutQueue queue = new HandOutQueue();
    private final PartitionPauses pauses;
    private final RecordSchedule schedule;
    private int inFlight;

    /** @param schedule when a fetched record is due to be handed out (a topic retry copy waits for its due time) */
    AssignedPartitions(
            String name, Consumer<byte[], byte[]> consumer, int maxUncommittedPerPartition, RecordSchedule schedule) {
        this.name = name;
        this.pauses = new PartitionPauses(consumer, maxUncommittedPerPartition);
        this.schedule = schedule;
    }

    /** Every partition owned now (for commits). */
    Collection<PartitionState> all() {
        return partitions.values();
    }

    /** Records handed out and not yet settled, abandoned or put back, over all partitions. */
    int inFlight() {
        return inFlight;
    }

    /**
     * Takes {@code partition} over with a fresh state; {@code presettled} are the offsets the previous owner
     * settled beyond its commit position (they are skipped). A state still held for it is released.
     */
    void assign(TopicPartition partition, long[] presettled) {
        PartitionState previous =
                partitions.put(partition, new PartitionState(partition, new ContiguousOffsetTracker<>(presettled)));
        if (previous != null) {
            inFlight -= previous.inFlight;
            previous.release("reassigned");
            queue.dropReleased();
        }
    }

    /** The states of those of {@code partitions} this consumer owns. */
    List<PartitionState> of(Collection<TopicPartition> wanted) {
        List<PartitionState> out = new ArrayList<>(wanted.size());
        for (TopicPartition tp : wanted) {
            PartitionState state = partitions.get(tp);
            if (state != null) {
                out.add(state);
            }
        }
        return out;
    }

    /** How many records of {@code states} are in flight. */
    static int running(List<PartitionState> states) {
        int n = 0;
        for (PartitionState s : states) {
            n += s.inFlight;
        }
        return n;
    }

    /** The partitions left this consumer: their waits fail, their buffered records are forgotten. */
    void release(List<PartitionState> states, String why) {
        for (PartitionState state : states) {
            inFlight -= state.inFlight;
            state.release(why);
            partitions.remove(state.partition);
            pauses.forget(state.partition);
        }
        queue.dropReleased();
    }

    /** The consumer closed: every partition is released. */
    void releaseAll(String why) {
        release(List.copyOf(partitions.values()), why);
    }

    /** Buffers fetched records for hand-out, skipping those fetched before or settled by a previous owner. */
    void buffer(ConsumerRecords<byte[], byte[]> records) {
        long nowMs = System.currentTimeMillis();
        long nowNanos = System.nanoTime();
        for (TopicPartition partition : records.partitions()) {
            PartitionState state = stateFor(partition);
            for (ConsumerRecord<byte[], byte[]> record : records.records(partition)) {
                if (record.offset() <= state.tracker.lastTracked()) {
                    // Fetched before (a position reset): it is in flight or settled already.
                    log.debug("{}: skipping {}@{} fetched twice", name, partition, record.offset());
                    continue;
                }
                if (state.tracker.track(record.offset()) == ContiguousOffsetTracker.Tracked.ALREADY_SETTLED) {
                    continue; // settled by the previous owner after its last commit position
                }
                long dueMs = schedule.dueAtMs(record);
                if (dueMs > nowMs) {
                    // Uncommitted while it waits (the tracker holds it), so a crash reads it again from Kafka.
                    queue.redeliverAt(nowNanos + (dueMs - nowMs) * 1_000_000L, state, record, 0);
                } else {
                    queue.add(state, record);
                }
            }
        }
    }

    private PartitionState stateFor(TopicPartition partition) {
        PartitionState state = partitions.get(partition);
        if (state == null) {
            // Only when the assignment callback could not read the committed metadata.
            state = new PartitionState(partition, new ContiguousOffsetTracker<>());
            partitions.put(partition, state);
        }
        return state;
    }

    /** Moves records whose time has come (redeliveries, due retry copies) to the front of the hand-out queue. */
    void promoteDue(long nowNanos) {
        queue.promoteDue(nowNanos);
    }

    /** How many buffered records wait to be handed out now. */
    int waiting() {
        return queue.size();
    }

    /** The next record to hand out, counted in flight; null when none is waiting. */
    HandOutQueue.Pending handOutNext() {
        while (!queue.isEmpty()) {
            HandOutQueue.Pending p = queue.next();
            if (!p.state().released) {
                p.state().inFlight++;
                inFlight++;
                return p;
            }
        }
        return null;
    }

    /** Applies a handler's report about a record this consumer handed out. */
    void apply(Settlement s) {
        PartitionState state = s.state();
        if (state.released) {
            s.failCommitWait(state.partition + " was revoked before offset "
                    + s.record().offset() + " settled; its next owner runs it again");
            return;
        }
        state.inFlight--;
        inFlight--;
        switch (s.kind()) {
            case SETTLED -> state.tracker.settle(s.record().offset(), s.untilCommitted());
            case ABANDONED -> {
                // Stays unsettled: the commit cannot pass it, so it is redelivered after a restart or rebalance.
            }
            case REDELIVER ->
                queue.redeliverAt(System.nanoTime() + s.after().toNanos(), state, s.record(), s.nextRedeliveries());
        }
    }

    /** Pauses every partition ({@code pauseAll}) or only those holding too many records behind a stuck one. */
    void updatePauses(boolean pauseAll) {
        pauses.update(partitions.values(), pauseAll);
    }
}
