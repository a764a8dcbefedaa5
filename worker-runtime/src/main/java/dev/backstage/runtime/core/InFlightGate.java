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
 * <p>The count is an atomic; the lock is taken only when someone waits <em>and</em> the release brings the
 * count down to what that waiter asked for, so settling a delivery on the hot path costs one atomic
 * decrement and two volatile reads. (Signalling on every release woke a fetch loop waiting for a batch of
 * 512 free slots 512 times, once per settlement; at Kafka rates that was most of the loop's work.)
 */
public final class InFlightGate implements FlowControl {
    private final int capacity;
    private final AtomicInteger inFlight = new AtomicInteger();
    /** Threads inside a wait; guarded by the lock. */
    private int waiters;
    /**
     * The highest in-flight count at which some waiter wants waking ({@code -1}: nobody waits). Raised by
     * each waiter before it checks the count, reset when the last waiter leaves; both under the lock.
     */
    private volatile int wakeAtInFlight = -1;

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
        enterWait(capacity - wanted);
        try {
            while (!stopping && free() < wanted && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
            }
            return stopping ? 0 : free();
        } finally {
            leaveWait();
            lock.unlock();
        }
    }

    /** Under the lock: announce the in-flight level this waiter needs, before it reads the count. */
    private void enterWait(int wakeAt) {
        waiters++;
        wakeAtInFlight = Math.max(wakeAtInFlight, wakeAt);
    }

    /** Under the lock. A waiter that stays keeps a level at least as high as it needs, so none is missed. */
    private void leaveWait() {
        if (--waiters == 0) {
            wakeAtInFlight = -1;
        }
    }

    @Override
    public boolean stopping() {
        return stopping;
    }

    void occupy() {
        inFlight.incrementAndGet();
    }

    /** A batch handed out at once: one atomic add, not one per delivery. */
    void occupy(int n) {
        inFlight.addAndGet(n);
    }

    void release() {
        int now = inFlight.decrementAndGet();
        if (now <= wakeAtInFlight) {
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
        enterWait(0);
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
            leaveWait();
            lock.unlock();
        }
    }
}
