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

    /**
     * Up to {@code limit} entries after the entry {@code afterId} (exclusive; null = from the oldest), oldest first:
     * one page, so a reader never holds a whole dead-letter queue. Providers that cannot resume at an entry serve
     * the first page only and throw {@link UnsupportedOperationException} for a later one.
     */
    default List<DeadLetterEntry> page(String queue, String afterId, int limit) {
        if (afterId == null) {
            return list(queue, limit);
        }
        throw new UnsupportedOperationException("this broker's dead letters can be read from the oldest only");
    }

    /** Whether {@link #redriveOne} and {@link #delete} work on this broker (false: they throw). */
    default boolean supportsSingleEntries() {
        return false;
    }

    /**
     * Moves the entry {@code id} back onto its queue as {@link #redrive} does; false when no such entry exists.
     * Providers whose dead letters are a log or a queue (no access by id) throw {@link UnsupportedOperationException}.
     */
    default boolean redriveOne(String queue, String id) {
        throw new UnsupportedOperationException(
                "this broker cannot redrive one dead letter by id; redrive all instead");
    }

    /** Deletes the entry {@code id}; false when no such entry exists. Same support as {@link #redriveOne}. */
    default boolean delete(String queue, String id) {
        throw new UnsupportedOperationException("this broker cannot delete one dead letter by id");
    }
}
