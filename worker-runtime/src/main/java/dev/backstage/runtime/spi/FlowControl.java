package dev.backstage.runtime.spi;

import java.time.Duration;

/**
 * The worker's in-flight allowance, as seen by a fetch loop. Pull-based providers ask for room before
 * each read and read at most that many; push-based ones size their prefetch from {@link #capacity()}.
 */
public interface FlowControl {
    /** Total in-flight allowance (the worker's concurrency). */
    int capacity();

    /** Free slots now. */
    int free();

    /**
     * Waits up to {@code maxWait} until at least one slot is free and returns the number of free slots;
     * returns 0 on timeout or when the worker is stopping.
     */
    default int awaitFree(Duration maxWait) throws InterruptedException {
        return awaitFree(1, maxWait);
    }

    /**
     * Waits up to {@code maxWait} until at least {@code atLeast} slots are free, then returns the number of
     * free slots — which may be fewer than asked (even 0) when the wait times out, and is 0 when stopping.
     * Fetching in batches instead of one slot at a time keeps reads large under load.
     */
    int awaitFree(int atLeast, Duration maxWait) throws InterruptedException;

    /** True once shutdown began: fetch loops should exit. */
    boolean stopping();
}
