package dev.backstage.runtime.kafka;

import java.util.Arrays;
import java.util.OptionalLong;
import java.util.function.Consumer;

/**
 * Which fetched offsets of one partition are settled, and how far the group may commit.
 *
 * <p>Records of a partition are handled in parallel, so they settle in any order, but a Kafka commit
 * is a single position: everything below it counts as done. The committable position is therefore the
 * lowest offset that is fetched and not yet settled (or one past the last fetched offset when all are
 * settled). A later offset finishing first never moves it past an earlier unfinished one.
 *
 * <p>Offsets need not be consecutive (compaction and transaction markers leave gaps): only the
 * offsets actually {@linkplain #track tracked} count. Offsets that an earlier owner already settled
 * beyond its commit (see {@link CommitMetadata}) can be passed in as {@code presettled}: tracking one
 * of them reports {@link Tracked#ALREADY_SETTLED} so the caller skips it instead of running it twice.
 *
 * <p>A settlement may carry an attachment (the poll loop's "ack committed" future). Once the
 * committable position passes the offset, the attachment waits in offset order until
 * {@link #releaseCommitted} reports a confirmed commit covering it: no per-ack searching or sorting.
 *
 * <p>Not thread-safe: the poll thread owns it. Pure bookkeeping, no Kafka calls.
 *
 * @param <A> what a settlement may carry until its offset is committed
 */
public final class ContiguousOffsetTracker<A> {
    /** What {@link #track} found. */
    public enum Tracked {
        /** A new record: hand it out and settle it later. */
        NEW,
        /** Settled by an earlier owner (recorded in commit metadata): do not hand it out. */
        ALREADY_SETTLED
    }

    private static final int INITIAL_CAPACITY = 64;

    // A ring of tracked offsets in fetch order (strictly increasing) with their settled flags. The head
    // is the oldest offset not yet passed by the committable position.
    private long[] offsets = new long[INITIAL_CAPACITY];
    private boolean[] settled = new boolean[INITIAL_CAPACITY];
    private Object[] attachments = new Object[INITIAL_CAPACITY];
    private int head;
    private int size;
    private int unsettled;

    // Attachments of offsets the committable position has passed, in offset order, until a commit is confirmed.
    private long[] passedOffsets = new long[INITIAL_CAPACITY];
    private Object[] passedItems = new Object[INITIAL_CAPACITY];
    private int passedHead;
    private int passedSize;

    private long lastTracked = -1;
    private long committable = -1;

    // Offsets settled by a previous owner beyond its commit, ascending; consumed as tracking passes them.
    private final long[] presettled;
    private int presettledIndex;

    public ContiguousOffsetTracker() {
        this(new long[0]);
    }

    /** @param presettled offsets already settled by a previous owner (any order; duplicates ignored) */
    public ContiguousOffsetTracker(long[] presettled) {
        this.presettled = Arrays.stream(presettled).sorted().distinct().toArray();
    }

    /**
     * Records that {@code offset} was fetched. Offsets must be tracked in increasing order, as the
     * consumer returns them.
     */
    public Tracked track(long offset) {
        if (offset <= lastTracked) {
            throw new IllegalArgumentException(
                    "offset " + offset + " tracked after " + lastTracked + ": offsets must increase");
        }
        lastTracked = offset;
        while (presettledIndex < presettled.length && presettled[presettledIndex] < offset) {
            presettledIndex++;
        }
        boolean already = presettledIndex < presettled.length && presettled[presettledIndex] == offset;
        if (already) {
            presettledIndex++;
        }
        if (size == 0 && already) {
            // Nothing earlier is open: the commit may move past it straight away.
            committable = offset + 1;
            return Tracked.ALREADY_SETTLED;
        }
        append(offset, already);
        if (!already) {
            unsettled++;
        }
        return already ? Tracked.ALREADY_SETTLED : Tracked.NEW;
    }

    /**
     * Marks a tracked offset settled. Throws if it was never tracked or is settled already: the core
     * settles each delivery exactly once, so either is a bookkeeping bug worth failing loudly on.
     */
    public void settle(long offset) {
        settle(offset, null);
    }

    /** As {@link #settle(long)}, keeping {@code attachment} until a commit covering the offset is confirmed. */
    public void settle(long offset, A attachment) {
        int index = indexOf(offset);
        if (index < 0) {
            throw new IllegalStateException("offset " + offset + " is not tracked (or already committable)");
        }
        int slot = slot(index);
        if (settled[slot]) {
            throw new IllegalStateException("offset " + offset + " settled twice");
        }
        settled[slot] = true;
        attachments[slot] = attachment;
        unsettled--;
        advanceHead();
    }

    /** Hands over, in offset order, the attachments of offsets below {@code committedOffset}. */
    @SuppressWarnings("unchecked")
    public void releaseCommitted(long committedOffset, Consumer<A> each) {
        while (passedSize > 0 && passedOffsets[passedHead] < committedOffset) {
            A item = (A) passedItems[passedHead];
            passedItems[passedHead] = null;
            passedHead = (passedHead + 1) % passedOffsets.length;
            passedSize--;
            each.accept(item);
        }
    }

    /** Hands over every attachment still held (the partition is going away uncommitted). */
    @SuppressWarnings("unchecked")
    public void releaseAll(Consumer<A> each) {
        releaseCommitted(Long.MAX_VALUE, each);
        for (int i = 0; i < size; i++) {
            int slot = slot(i);
            if (attachments[slot] != null) {
                A item = (A) attachments[slot];
                attachments[slot] = null;
                each.accept(item);
            }
        }
    }

    /**
     * The position to commit: the lowest tracked unsettled offset, or one past the last tracked offset
     * when every tracked offset is settled. Empty before anything was tracked.
     */
    public OptionalLong committableOffset() {
        // Invariant: when size > 0 the head is unsettled (settled heads are popped at once).
        if (size > 0) {
            return OptionalLong.of(offsets[head]);
        }
        return committable < 0 ? OptionalLong.empty() : OptionalLong.of(committable);
    }

    /**
     * Offsets known to be settled beyond {@link #committableOffset()}: tracked ones that finished out of
     * order, plus presettled ones not fetched yet. Ascending. Recorded in the commit metadata so the next
     * owner skips them.
     */
    public long[] settledBeyondCommittable() {
        long[] out = new long[size - unsettled + (presettled.length - presettledIndex)];
        int n = 0;
        for (int i = 0; i < size; i++) {
            int slot = slot(i);
            if (settled[slot]) {
                out[n++] = offsets[slot];
            }
        }
        for (int i = presettledIndex; i < presettled.length; i++) {
            out[n++] = presettled[i];
        }
        return n == out.length ? out : Arrays.copyOf(out, n);
    }

    /** The highest offset tracked so far, or -1. */
    public long lastTracked() {
        return lastTracked;
    }

    /** Tracked offsets not settled yet. */
    public int unsettled() {
        return unsettled;
    }

    /** Tracked offsets the commit has not passed yet (settled or not): what the tracker holds in memory. */
    public int size() {
        return size;
    }

    private void advanceHead() {
        while (size > 0 && settled[head]) {
            committable = offsets[head] + 1;
            if (attachments[head] != null) {
                pass(offsets[head], attachments[head]);
                attachments[head] = null;
            }
            head = head + 1 == offsets.length ? 0 : head + 1; // no division on the hot path
            size--;
        }
    }

    private void pass(long offset, Object item) {
        if (passedSize == passedOffsets.length) {
            long[] newOffsets = new long[passedOffsets.length * 2];
            Object[] newItems = new Object[passedOffsets.length * 2];
            for (int i = 0; i < passedSize; i++) {
                int from = (passedHead + i) % passedOffsets.length;
                newOffsets[i] = passedOffsets[from];
                newItems[i] = passedItems[from];
            }
            passedOffsets = newOffsets;
            passedItems = newItems;
            passedHead = 0;
        }
        int slot = (passedHead + passedSize) % passedOffsets.length;
        passedOffsets[slot] = offset;
        passedItems[slot] = item;
        passedSize++;
    }

    /** Position of {@code offset} counted from the head, or -1. */
    private int indexOf(long offset) {
        if (size == 0 || offset < offsets[head] || offset > offsets[slot(size - 1)]) {
            return -1;
        }
        // Fast path: no gaps between the head and this offset (the usual case).
        long guess = offset - offsets[head];
        if (guess < size && offsets[slot((int) guess)] == offset) {
            return (int) guess;
        }
        int low = 0;
        int high = size - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            long value = offsets[slot(mid)];
            if (value < offset) {
                low = mid + 1;
            } else if (value > offset) {
                high = mid - 1;
            } else {
                return mid;
            }
        }
        return -1;
    }

    private int slot(int index) {
        int s = head + index;
        return s >= offsets.length ? s - offsets.length : s;
    }

    private void append(long offset, boolean isSettled) {
        if (size == offsets.length) {
            grow();
        }
        int slot = slot(size);
        offsets[slot] = offset;
        settled[slot] = isSettled;
        attachments[slot] = null;
        size++;
    }

    private void grow() {
        long[] newOffsets = new long[offsets.length * 2];
        boolean[] newSettled = new boolean[offsets.length * 2];
        Object[] newAttachments = new Object[offsets.length * 2];
        for (int i = 0; i < size; i++) {
            newOffsets[i] = offsets[slot(i)];
            newSettled[i] = settled[slot(i)];
            newAttachments[i] = attachments[slot(i)];
        }
        offsets = newOffsets;
        settled = newSettled;
        attachments = newAttachments;
        head = 0;
    }
}
