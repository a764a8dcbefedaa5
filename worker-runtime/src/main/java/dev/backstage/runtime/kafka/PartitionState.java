package dev.backstage.runtime.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * What the poll loop knows about one partition while it owns it. A fresh object per assignment, so a
 * settlement that arrives after the partition was revoked (and perhaps assigned again) is recognised by
 * identity and never touches the new owner's bookkeeping. Poll thread only.
 */
final class PartitionState {
    final TopicPartition partition;
    final ContiguousOffsetTracker tracker;
    /** Handed to the sink and not yet settled, abandoned or put back for redelivery. */
    int inFlight;
    /** Acks waiting for a commit that covers them. */
    final List<CommitWaiter> waiters = new ArrayList<>();
    long requestedOffset = -1;
    String requestedMetadata = "";
    long confirmedOffset = -1;
    boolean released;

    PartitionState(TopicPartition partition, ContiguousOffsetTracker tracker) {
        this.partition = partition;
        this.tracker = tracker;
    }

    record CommitWaiter(long offset, CompletableFuture<Void> done) {}

    /** Completes the acks a confirmed commit at {@code offset} covers. */
    void confirmed(long offset) {
        confirmedOffset = Math.max(confirmedOffset, offset);
        waiters.removeIf(w -> {
            if (w.offset() < confirmedOffset) {
                w.done().complete(null);
                return true;
            }
            return false;
        });
    }

    /** The partition left this worker: acks not covered by a commit will run again elsewhere. */
    void release(String why) {
        released = true;
        for (CommitWaiter w : waiters) {
            w.done().completeExceptionally(new IllegalStateException(
                    partition + " " + why + " before offset " + w.offset() + " was committed; its next owner may run it again"));
        }
        waiters.clear();
    }
}
