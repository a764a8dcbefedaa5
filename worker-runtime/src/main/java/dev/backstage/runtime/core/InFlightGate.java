package dev.backstage.runtime.core;

import dev.backstage.runtime.spi.FlowControl;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Counts deliveries handed to the core and not yet settled. Fetch loops wait here for room, so a
 * worker never holds more than {@code capacity} unsettled deliveries it asked for.
 *
 * <p>The count is an atomic; the lock is taken only when someone waits, so settling a delivery on the
 * hot path costs one atomic decrement.
 */
public final class InFlightGate implements FlowControl {
    private final int capacity;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger waiters = new AtomicInteger();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private volatile boolean stopping;

    public InFlightGate(int capacity) {
        this.capacity = capacity;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public int free() {
        return Math.max(0, capacity - inFlight.get());
    }

    public int inFlight() {
        return inFlight.get();
    }

    @Override
    public int awaitFree(int atLeast, Duration maxWait) throws InterruptedException {
        int wanted = Math.max(1, Math.min(atLeast, capacity));
        if (!stopping && free() >= wanted) {
            return free();
        }
        long nanos = maxWait.toNanos();
        lock.lock();
        waiters.incrementAndGet();
        try {
            while (!stopping && free() < wanted && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
            }
            return stopping ? 0 : free();
        } finally {
            waiters.decrementAndGet();
            lock.unlock();
        }
    }

    @Override
    public boolean stopping() {
        return stopping;
    }

    void occupy() {
        inFlight.incrementAndGet();
    }

    void release() {
        inFlight.decrementAndGet();
        if (waiters.get() > 0) {
            signal();
        }
    }

    private void signal() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    void beginStopping() {
        stopping = true;
        signal();
    }

    /** Waits until nothing is in flight or the timeout passes; true when drained. */
    boolean awaitDrained(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        waiters.incrementAndGet();
        try {
            while (inFlight.get() > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                changed.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
            }
            return true;
        } finally {
            waiters.decrementAndGet();
            lock.unlock();
        }
    }
}
