package dev.backstage.bench;

import java.lang.management.ManagementFactory;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One side's timed window: from the first job a handler sees to the last one (set-up such as {@code start()},
 * connecting and preloading happens before, so it is outside), with this process's CPU over the same window.
 * Handlers call {@link #handled()} once per job, on any thread.
 */
final class TimedWindow {
    private final long jobs;
    private final AtomicLong count = new AtomicLong();
    private final CountDownLatch all = new CountDownLatch(1);
    private volatile long startNanos;
    private volatile long startCpu;
    private volatile long endNanos;
    private volatile long endCpu;

    TimedWindow(long jobs) {
        this.jobs = jobs;
    }

    void handled() {
        long n = count.incrementAndGet();
        if (n == 1) {
            startCpu = processCpu();
            startNanos = System.nanoTime();
        }
        if (n == jobs) {
            endNanos = System.nanoTime();
            endCpu = processCpu();
            all.countDown();
        }
    }

    Measured await(String side) throws InterruptedException {
        if (!all.await(10, TimeUnit.MINUTES)) {
            throw new IllegalStateException(side + " handled only " + count.get() + " of " + jobs + " jobs in 10 minutes");
        }
        long wall = endNanos - startNanos;
        return new Measured(jobs / (wall / 1e9), (endCpu - startCpu) / 1000.0 / jobs);
    }

    static long processCpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** jobs/s and this process's CPU µs per job (the broker runs in another process and is not counted). */
    record Measured(double jobsPerSecond, double cpuMicrosPerJob) {}
}
