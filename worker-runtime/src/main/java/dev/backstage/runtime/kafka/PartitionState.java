package dev.backstage.runtime.kafka;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * What the poll loop knows about one partition while it owns it. A fresh object per assignment, so a
 * settlement that arrives after the partition was revoked (and perhaps assigned again) is recognised by
 * identity and never touches the new owner's bookkeeping. Poll thread only.
 */
final class PartitionState {
    final TopicPartition partition;
    /** Settled offsets; an ack's "committed" future rides along until a commit covering it is confirmed. */
    final ContiguousOffsetTracker<CompletableFuture<Void>> tracker;
    /** Handed to the sink and not yet settled, abandoned or put back for redelivery. */
    int inFlight;

    long requestedOffset = -1;
    String requestedMetadata = "";
    long confirmedOffset = -1;
    boolean released;

    PartitionState(TopicPartition partition, ContiguousOffsetTracker<CompletableFuture<Void>> tracker) {
        this.partition = partition;
        this.tracker = tracker;
    }

    /** Completes the acks a confirmed commit at {@code offset} covers. */
    void confirmed(long offset) {
        confirmedOffset = Math.max(confirmedOffset, offset);
        tracker.releaseCommitted(confirmedOffset, done -> done.complete(null));
    }

    /** The partition left this worker: acks not covered by a commit will run again elsewhere. */
    void release(String why) {
        released = true;
        tracker.releaseAll(done -> done.completeExceptionally(new IllegalStateException(
                partition + " " + why + " before the record was committed; its next owner may run it again")));
    }
}
