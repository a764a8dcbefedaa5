package dev.backstage.runtime.core;

import dev.backstage.runtime.spi.FlowControl;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Counts deliveries handed to the core and not yet settled. Fetch loops wait here for room, so a
 * worker never holds more than {@code capacity} unsettled deliveries it asked for.
 */
public final class InFlightGate implements FlowControl {
    private final int capacity;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private int inFlight;
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
        lock.lock();
        try {
            return Math.max(0, capacity - inFlight);
        } finally {
            lock.unlock();
        }
    }

    public int inFlight() {
        lock.lock();
        try {
            return inFlight;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int awaitFree(Duration maxWait) throws InterruptedException {
        long nanos = maxWait.toNanos();
        lock.lock();
        try {
            while (!stopping && inFlight >= capacity) {
                if (nanos <= 0) {
                    return 0;
                }
                nanos = changed.awaitNanos(nanos);
            }
            return stopping ? 0 : capacity - inFlight;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean stopping() {
        return stopping;
    }

    void occupy() {
        lock.lock();
        try {
            inFlight++;
        } finally {
            lock.unlock();
        }
    }

    void release() {
        lock.lock();
        try {
            inFlight--;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    void beginStopping() {
        lock.lock();
        try {
            stopping = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits until nothing is in flight or the timeout passes; true when drained. */
    boolean awaitDrained(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            while (inFlight > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                changed.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
            }
            return true;
        } finally {
            lock.unlock();
        }
    }
}
