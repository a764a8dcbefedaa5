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
    private volatile long startBrokerCpu;
    private volatile long endBrokerCpu;
    /** The broker's process id when it runs on this machine (RabbitMQ's Erlang node), else 0. */
    static volatile long brokerPid;

    TimedWindow(long jobs) {
        this.jobs = jobs;
    }

    void handled() {
        long n = count.incrementAndGet();
        if (n == 1) {
            startBrokerCpu = brokerCpu();
            startCpu = processCpu();
            startNanos = System.nanoTime();
        }
        if (n == jobs) {
            endNanos = System.nanoTime();
            endCpu = processCpu();
            endBrokerCpu = brokerCpu();
            all.countDown();
        }
    }

    Measured await(String side) throws InterruptedException {
        if (!all.await(10, TimeUnit.MINUTES)) {
            throw new IllegalStateException(
                    side + " handled only " + count.get() + " of " + jobs + " jobs in 10 minutes");
        }
        long wall = endNanos - startNanos;
        return new Measured(
                jobs / (wall / 1e9),
                (endCpu - startCpu) / 1000.0 / jobs,
                brokerPid == 0 ? Double.NaN : (endBrokerCpu - startBrokerCpu) / 1000.0 / jobs);
    }

    static long processCpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /**
     * The broker process's CPU time in ns, from {@code /proc/<pid>/stat} (user + system, in clock ticks of 10 ms:
     * over a window of a few seconds that is exact to about 1 %).
     */
    static long brokerCpu() {
        long pid = brokerPid;
        if (pid == 0) {
            return 0;
        }
        try {
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000_000L;
        } catch (java.io.IOException | RuntimeException e) {
            return 0;
        }
    }

    /**
     * jobs/s, this process's CPU µs per job, and the broker's CPU µs per job when its process is known (NaN
     * otherwise).
     */
    record Measured(double jobsPerSecond, double cpuMicrosPerJob, double brokerCpuMicrosPerJob) {}
}
