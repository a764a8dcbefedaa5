package dev.backstage.runtime.rabbitmq;

import java.util.Arrays;
import java.util.BitSet;

/**
 * The acks one channel epoch still owes the broker, coalesced: delivery tags on a channel run 1, 2, 3, …, so once
 * every tag up to {@code w} is settled, one {@code basic.ack(w, multiple=true)} settles them all.
 *
 * <p>A tag is settled in one of two ways: {@link #acked} (its ack is owed and may be carried by a multiple ack)
 * or {@link #framed} (its own frame — a reject/requeue, or an individual ack — has already been written). The
 * multiple ack is only ever sent up to the highest <em>owed</em> tag of the settled prefix, so it names a tag the
 * broker still holds as unacked, and never covers a tag that is not settled: a message that is to be requeued is
 * requeued by its own frame before it counts as settled.
 *
 * <p>When to write: at once when every delivery so far is settled ({@link #delivered} tells the highest tag
 * delivered), so at low load every ack goes out at once; while others are still being handled, once {@code batch}
 * acks are owed (one of those jobs finishing last writes the rest). One flusher at a time: {@code acked}/{@code
 * framed} return true when the caller must flush; the flusher then writes what {@link #next} returns until it
 * returns null, which releases the role. Others only record.
 *
 * <p>Owed acks above a gap (a tag still being handled) wait for the gap to close, but never hold the broker's
 * prefetch window hostage to one slow job: once {@code spillAt} of them wait, {@code next} hands them out as
 * individual acks, and {@link #stuck} (called on the channel's supervision tick) hands them out when the prefix has
 * not moved since the previous tick, and owed acks waiting for a batch when no flush ran since the previous tick. {@link #drain} hands out every owed ack (before the channel closes).
 *
 * <p>Thread-safe. One instance per channel epoch, starting after the epoch's first tag minus one ({@code start}:
 * 0 on a new channel; amqp-client's recovered channel numbers on from the highest tag it had seen).
 */
final class AckWatermark {
    /** The frames one flush writes: the singles first, then the multiple ack (0: none). */
    record Flush(long[] singles, long multipleUpTo) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Flush f && f.multipleUpTo == multipleUpTo && Arrays.equals(f.singles, singles);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(multipleUpTo) * 31 + Arrays.hashCode(singles);
        }

        @Override
        public String toString() {
            return "Flush[singles=" + Arrays.toString(singles) + ", multipleUpTo=" + multipleUpTo + "]";
        }
    }

    private static final long[] NONE = new long[0];
    private static final int COMPACT_AT = 4096;

    private static final long DRAIN_WAIT_MS = 5_000;

    private final int spillAt;
    private final int batch;
    private final long start;
    private volatile long lastDelivered;
    /** Owed tags within the prefix not yet handed to a flusher. */
    private int owedInPrefix;

    private long flushedAtTick;
    private long flushes;
    /** Every tag up to {@code base} is settled. */
    private long base;

    private long baseAtTick;
    /** Bit i stands for tag {@code offset + i}; {@code offset <= base + 1}. */
    private long offset;

    private BitSet settled = new BitSet();
    private BitSet owed = new BitSet();
    /** The highest owed tag within the settled prefix not yet handed to a flusher; 0: none. */
    private long owedUpTo;
    /** Owed tags above the prefix. */
    private int blocked;

    private boolean flushing;
    private boolean draining;

    /**
     * @param start the tag before this epoch's first delivery (a tag at or below it is from an older epoch)
     * @param spillAt how many owed acks may wait above a gap before they go out one by one (at least 1)
     */
    AckWatermark(long start, int spillAt) {
        this(start, spillAt, 1);
    }

    /** @param batch how many owed acks wait for one frame while deliveries are still being handled (at least 1) */
    AckWatermark(long start, int spillAt, int batch) {
        this.batch = Math.max(1, batch);
        this.start = start;
        this.lastDelivered = start;
        this.base = start;
        this.baseAtTick = start;
        this.offset = start + 1;
        this.spillAt = Math.max(1, spillAt);
    }

    /** The channel's consumer got {@code tag} (called by the one delivering thread, before the tag is handled). */
    void delivered(long tag) {
        lastDelivered = tag;
    }

    /** True when {@code tag} was delivered before this epoch began (by a channel incarnation since closed). */
    boolean before(long tag) {
        return tag <= start;
    }

    /** Records that {@code tag} is acked (its frame is owed). True: the caller must now flush. */
    synchronized boolean acked(long tag) {
        return settle(tag, true);
    }

    /** Records that {@code tag}'s own frame has been written (call after the write). True: the caller must flush. */
    synchronized boolean framed(long tag) {
        return settle(tag, false);
    }

    private boolean settle(long tag, boolean owes) {
        if (tag <= base || settled.get(index(tag))) {
            throw new IllegalStateException("delivery tag " + tag + " settled twice");
        }
        int i = index(tag);
        settled.set(i);
        if (owes) {
            owed.set(i);
            blocked++;
        }
        if (tag == base + 1) {
            advance();
        }
        boolean due = owedUpTo != 0 && (owedInPrefix >= batch || base >= lastDelivered);
        if (flushing || (!due && blocked < spillAt)) {
            return false;
        }
        flushing = true;
        return true;
    }

    private void advance() {
        int from = index(base + 1);
        int end = settled.nextClearBit(from);
        int lastOwed = owed.previousSetBit(end - 1);
        if (lastOwed >= from) {
            owedUpTo = offset + lastOwed;
            for (int i = owed.nextSetBit(from); i >= 0 && i < end; i = owed.nextSetBit(i + 1)) {
                blocked--;
                owedInPrefix++;
            }
            owed.clear(from, end);
        }
        base = offset + end - 1;
        if (base + 1 - offset >= COMPACT_AT) {
            int shift = index(base + 1);
            settled = settled.get(shift, Math.max(shift, settled.length()));
            owed = owed.get(shift, Math.max(shift, owed.length()));
            offset = base + 1;
        }
    }

    /**
     * For the flusher: the next frames to write, or null when nothing is owed (the flusher role is then
     * released, atomically with this answer, so an ack recorded afterwards starts a new flush).
     */
    synchronized Flush next() {
        long[] singles = blocked >= spillAt ? takeBlocked() : NONE;
        long upTo = owedUpTo;
        owedUpTo = 0;
        owedInPrefix = 0;
        flushes++;
        if (upTo == 0 && singles.length == 0) {
            flushing = false;
            if (draining) {
                notifyAll();
            }
            return null;
        }
        return new Flush(singles, upTo);
    }

    /**
     * On the supervision tick: the owed acks above a gap that has not closed since the previous tick, as individual
     * acks, and the owed prefix if no flush ran since the previous tick, with the flusher role (write, then {@link
     * #next} until null); null when there is nothing such or a flush is running.
     */
    synchronized Flush stuck() {
        boolean still = base == baseAtTick;
        boolean idle = flushes == flushedAtTick;
        baseAtTick = base;
        flushedAtTick = flushes;
        if (flushing || !((still && blocked > 0) || (idle && owedUpTo > 0))) {
            return null;
        }
        flushing = true;
        long upTo = owedUpTo;
        owedUpTo = 0;
        owedInPrefix = 0;
        return new Flush(still && blocked > 0 ? takeBlocked() : NONE, upTo);
    }

    /**
     * Every owed ack, now (the channel is about to close), after a running flush has finished (waiting at most
     * {@value #DRAIN_WAIT_MS} ms); null when none. Takes the flusher role for good.
     */
    synchronized Flush drain() throws InterruptedException {
        long deadline = System.nanoTime() + DRAIN_WAIT_MS * 1_000_000;
        long left;
        draining = true;
        while (flushing && (left = deadline - System.nanoTime()) > 0) {
            wait(Math.max(1, left / 1_000_000));
        }
        flushing = true;
        long[] singles = blocked > 0 ? takeBlocked() : NONE;
        long upTo = owedUpTo;
        owedUpTo = 0;
        owedInPrefix = 0;
        return upTo == 0 && singles.length == 0 ? null : new Flush(singles, upTo);
    }

    /** Releases the flusher role after a failed write (the channel is gone; the broker redelivers what it held). */
    synchronized void abandon() {
        flushing = false;
        notifyAll();
    }

    private long[] takeBlocked() {
        long[] tags = new long[blocked];
        int n = 0;
        for (int i = owed.nextSetBit(0); i >= 0; i = owed.nextSetBit(i + 1)) {
            tags[n++] = offset + i;
        }
        owed.clear();
        blocked = 0;
        return tags;
    }

    private int index(long tag) {
        return Math.toIntExact(tag - offset);
    }
}
