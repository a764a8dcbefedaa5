package dev.backstage.runtime.kafka;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Which partitions the consumer fetches: all paused while there is no room (polling then only keeps the
 * membership and runs rebalance callbacks), or just those holding {@code maxUncommitted} records behind a stuck
 * one. Calls pause/resume only for what changed. Poll thread only.
 */
final class PartitionPauses {
    private final Consumer<byte[], byte[]> consumer;
    private final int maxUncommitted;
    private final Set<TopicPartition> paused = new HashSet<>();

    PartitionPauses(Consumer<byte[], byte[]> consumer, int maxUncommitted) {
        this.consumer = consumer;
        this.maxUncommitted = maxUncommitted;
    }

    void update(Iterable<PartitionState> partitions, boolean pauseAll) {
        Set<TopicPartition> wanted = new HashSet<>();
        for (PartitionState state : partitions) {
            if (pauseAll || state.tracker.size() >= maxUncommitted) {
                wanted.add(state.partition);
            }
        }
        if (wanted.equals(paused)) {
            return;
        }
        List<TopicPartition> toPause = new ArrayList<>();
        for (TopicPartition tp : wanted) {
            if (!paused.contains(tp)) {
                toPause.add(tp);
            }
        }
        List<TopicPartition> toResume = new ArrayList<>();
        for (TopicPartition tp : paused) {
            if (!wanted.contains(tp)) {
                toResume.add(tp);
            }
        }
        Set<TopicPartition> assigned = consumer.assignment();
        toPause.retainAll(assigned);
        toResume.retainAll(assigned);
        if (!toPause.isEmpty()) {
            consumer.pause(toPause);
        }
        if (!toResume.isEmpty()) {
            consumer.resume(toResume);
        }
        paused.clear();
        paused.addAll(wanted);
        paused.retainAll(assigned);
    }

    /** The partition left this consumer. */
    void forget(TopicPartition partition) {
        paused.remove(partition);
    }
}
