package dev.backstage.runtime.spi;

import java.util.List;

/** Reads and redrives a queue's dead-letter destination (the CLI's {@code dead-letters} commands). */
public interface DeadLetterQueue {
    /** Up to {@code limit} entries, oldest first. */
    List<DeadLetterEntry> list(String queue, int limit);

    /** Number of entries in the queue's dead-letter destination. */
    long count(String queue);

    /**
     * Moves up to {@code limit} entries back onto their queue as fresh jobs (delivery count 1, same job id).
     * Each entry is re-published before it is removed, so an interruption can duplicate an entry but never
     * lose one. Returns how many were moved.
     */
    long redrive(String queue, int limit);
}
