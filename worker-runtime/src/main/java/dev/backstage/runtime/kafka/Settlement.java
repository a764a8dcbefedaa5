package dev.backstage.runtime.kafka;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A message from a handler thread to the poll loop about one record it handed out. The used
 * {@link SettlementTicket} is itself the message, so reporting a record allocates nothing.
 */
interface Settlement {
    enum Kind {
        SETTLED,
        ABANDONED,
        REDELIVER
    }

    Kind kind();

    PartitionState state();

    ConsumerRecord<byte[], byte[]> record();

    /** Completed when a commit covers the record; null when nobody waits for that. */
    CompletableFuture<Void> untilCommitted();

    /** {@link Kind#REDELIVER}: how long before the record is handed out again. */
    Duration after();

    /** {@link Kind#REDELIVER}: how often the record will then have been handed out again. */
    int nextRedeliveries();

    /** Fails the commit wait, if any, with {@code why} (the record will run again elsewhere or later). */
    default void failCommitWait(String why) {
        CompletableFuture<Void> wait = untilCommitted();
        if (wait != null) {
            wait.completeExceptionally(new IllegalStateException(why));
        }
    }
}
