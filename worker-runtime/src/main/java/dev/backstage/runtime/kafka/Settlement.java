package dev.backstage.runtime.kafka;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A message from a handler thread to the poll loop about one record it handed out.
 *
 * @param untilCommitted completed when a commit covers the record (null when nobody waits for that)
 */
record Settlement(Kind kind, PartitionState state, ConsumerRecord<byte[], byte[]> record,
        CompletableFuture<Void> untilCommitted, Duration after, int redeliveries) {
    enum Kind { SETTLED, ABANDONED, REDELIVER }

    static Settlement settled(PartitionState s, ConsumerRecord<byte[], byte[]> r, CompletableFuture<Void> done) {
        return new Settlement(Kind.SETTLED, s, r, done, null, 0);
    }

    static Settlement abandoned(PartitionState s, ConsumerRecord<byte[], byte[]> r) {
        return new Settlement(Kind.ABANDONED, s, r, null, null, 0);
    }

    /** Hand the record out again after {@code after}; {@code redeliveries} counts how often it was. */
    static Settlement redeliver(PartitionState s, ConsumerRecord<byte[], byte[]> r, Duration after, int redeliveries) {
        return new Settlement(Kind.REDELIVER, s, r, null, after, redeliveries);
    }

    /** Fails the commit wait, if any, with {@code why} (the record will run again elsewhere or later). */
    void failCommitWait(String why) {
        if (untilCommitted != null) {
            untilCommitted.completeExceptionally(new IllegalStateException(why));
        }
    }
}
