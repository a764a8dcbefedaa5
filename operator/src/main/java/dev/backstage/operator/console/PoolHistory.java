package dev.backstage.operator.console;

import java.util.ArrayList;
import java.util.List;

/**
 * A pool's recent samples in a fixed ring of primitive arrays: once full, each new sample overwrites the oldest, so
 * the memory per pool is fixed at construction: {@link #BYTES_PER_SAMPLE} bytes per slot plus the arrays' headers
 * (14,496 bytes, about 14.2 KiB, at the default 360 slots, one hour at one sample per 10 s; 13.8 MiB at
 * 1,000 pools). Thread-safe:
 * the sampler appends while HTTP threads read.
 */
public final class PoolHistory {
    /** Four longs (time, outstanding, in flight, dead letters) and two ints (desired, ready). */
    public static final int BYTES_PER_SAMPLE = 4 * Long.BYTES + 2 * Integer.BYTES;

    private final long[] at;
    private final long[] outstanding;
    private final long[] inFlight;
    private final long[] deadLetters;
    private final int[] desired;
    private final int[] ready;
    private int next;
    private int size;

    public PoolHistory(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("history capacity must be at least 1, got " + capacity);
        }
        at = new long[capacity];
        outstanding = new long[capacity];
        inFlight = new long[capacity];
        deadLetters = new long[capacity];
        desired = new int[capacity];
        ready = new int[capacity];
    }

    /** Bytes the arrays of one history of {@code capacity} slots hold (array headers of 16 bytes each included). */
    public static long bytesFor(int capacity) {
        return (long) capacity * BYTES_PER_SAMPLE + 6 * 16L;
    }

    public int capacity() {
        return at.length;
    }

    public synchronized void add(PoolSample sample) {
        at[next] = sample.atMs();
        outstanding[next] = sample.outstanding();
        inFlight[next] = sample.inFlight();
        deadLetters[next] = sample.deadLetters();
        desired[next] = sample.desired();
        ready[next] = sample.ready();
        next = (next + 1) % at.length;
        size = Math.min(size + 1, at.length);
    }

    /** The samples held, oldest first. */
    public synchronized List<PoolSample> samples() {
        List<PoolSample> out = new ArrayList<>(size);
        int first = (next - size + at.length) % at.length;
        for (int i = 0; i < size; i++) {
            int j = (first + i) % at.length;
            out.add(new PoolSample(at[j], outstanding[j], inFlight[j], desired[j], ready[j], deadLetters[j]));
        }
        return out;
    }
}
