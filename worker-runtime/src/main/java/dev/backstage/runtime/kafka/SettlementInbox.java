package dev.backstage.runtime.kafka;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * Settlements on their way from handler threads to the poll thread. Lock-free: handler threads add, the poll
 * thread drains into its {@link AssignedPartitions}. The poll thread parks only when it has nothing else to do
 * (revoke wait, stopped, no room) and asks to be unparked while it waits.
 */
final class SettlementInbox {
    private final ConcurrentLinkedQueue<Settlement> settlements = new ConcurrentLinkedQueue<>();
    private final Thread pollThread;
    private volatile boolean waiting;

    SettlementInbox(Thread pollThread) {
        this.pollThread = pollThread;
    }

    /** Any thread. */
    void add(Settlement settlement) {
        settlements.add(settlement);
        if (waiting) {
            LockSupport.unpark(pollThread);
        }
    }

    /** Applies every settlement that arrived. */
    void applyTo(AssignedPartitions partitions) {
        Settlement s;
        while ((s = settlements.poll()) != null) {
            partitions.apply(s);
        }
    }

    /** Parks until a settlement arrives or {@code max} passes, then applies what arrived. */
    void awaitAndApply(Duration max, AssignedPartitions partitions) throws InterruptedException {
        waiting = true;
        try {
            // A settlement added between this check and the park leaves an unpark permit: no lost wake-up.
            if (settlements.isEmpty()) {
                LockSupport.parkNanos(this, max.toNanos());
            }
        } finally {
            waiting = false;
        }
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        applyTo(partitions);
    }

    /** The consumer is gone: fails the commit wait of whatever is left, with {@code why}. */
    void failLeftovers(String name) {
        Settlement s;
        while ((s = settlements.poll()) != null) {
            s.failCommitWait(name + " closed before " + s.state().partition + "@"
                    + s.record().offset() + " was committed");
        }
    }
}
