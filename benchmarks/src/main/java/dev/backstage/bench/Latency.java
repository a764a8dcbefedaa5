package dev.backstage.bench;

import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Enqueue → handler start latency at low load: {@code jobs} jobs (20,000 by default, so p99 rests on 200
 * samples above it) per side sent at a fixed rate, each carrying its send time. Besides the total it prints how
 * long the enqueue call itself took (the producer's round trip until the broker acknowledged the job; the consumer
 * may see the job a little before that acknowledgement reaches the producer). Before the recorded window each side
 * sends {@code bench.latencyWarmupJobs} (5,000 by default) jobs the same way, not recorded: the throughput rounds
 * never run the producer path, and without it the side that sends first pays for its compilation.
 *
 * <p>With more than one side (e.g. the Worker and a raw client loop doing the same work), all sides run at once
 * and the sending alternates between them in blocks of one second, so each sees the same machine load.
 */
final class Latency {
    private Latency() {}

    /** One way of sending a job and running it. */
    interface Target extends AutoCloseable {
        String name();

        /** Starts consuming; {@code handled} is called on the handler thread with the job's send time. */
        void start(Handled handled) throws Exception;

        /** Sends one job carrying {@code sentNanos}, returning when the sender's API returns. */
        void send(long sentNanos) throws Exception;
    }

    interface Handled {
        void handled(long sentNanos);
    }

    /** The Worker's own {@code enqueue} and handler (payload {@code {"sentNanos": …}}, task "ping"). */
    static Target worker(String name, Worker worker) {
        return new Target() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public void start(Handled handled) {
                worker.register("ping", Ping.class, (ctx, p) -> {
                    handled.handled(p.sentNanos());
                    return Next.done();
                });
                worker.start();
            }

            @Override
            public void send(long sentNanos) {
                worker.enqueue("ping", new Ping(sentNanos));
            }

            @Override
            public void close() {
                worker.close();
            }
        };
    }

    static void measure(String broker, Worker worker, int jobs, int perSecond) throws Exception {
        measure(broker, List.of(worker("Worker", worker)), jobs, perSecond);
    }

    /** Sends {@code jobs} per side at {@code perSecond}, one second per side in turn, timing each send call. */
    private static void send(List<Target> targets, int jobs, int perSecond, Histogram[] sendCall) throws Exception {
        int n = targets.size();
        long interval = 1_000_000_000L / perSecond;
        long next = System.nanoTime();
        int block = perSecond; // one second per side, then the next side
        for (int sent = 0; sent < jobs * n; sent++) {
            int i = (sent / block) % n;
            next += interval;
            while (System.nanoTime() < next) {
                LockSupport.parkNanos(next - System.nanoTime());
            }
            long now = System.nanoTime();
            targets.get(i).send(now);
            sendCall[i].recordValue((System.nanoTime() - now) / 1_000);
        }
    }

    static void measure(String broker, List<Target> targets, int jobs, int perSecond) throws Exception {
        int n = targets.size();
        Recorder[] total = new Recorder[n];
        Histogram[] sendCall = new Histogram[n];
        int warmup = Integer.getInteger("bench.latencyWarmupJobs", 5_000);
        CountDownLatch warmedUp = new CountDownLatch(warmup * n);
        CountDownLatch all = new CountDownLatch(jobs * n);
        for (int i = 0; i < n; i++) {
            Recorder r = total[i] = new Recorder(3);
            sendCall[i] = new Histogram(3);
            targets.get(i).start(sent -> {
                r.recordValue(Math.max(0, (System.nanoTime() - sent) / 1_000));
                (warmedUp.getCount() > 0 ? warmedUp : all).countDown();
            });
        }
        // Warm-up: the same sending, not recorded, so that the producer path (not exercised by the throughput rounds)
        // is compiled and no side pays for it by going first.
        send(targets, warmup, perSecond, sendCall);
        if (!warmedUp.await(2, TimeUnit.MINUTES)) {
            throw new IllegalStateException(
                    "latency warm-up: only " + (warmup * n - warmedUp.getCount()) + " of " + warmup * n + " handled");
        }
        for (int i = 0; i < n; i++) {
            total[i].getIntervalHistogram(); // drops the warm-up's samples
            sendCall[i].reset();
        }
        double before = Load.now();
        send(targets, jobs, perSecond, sendCall);
        if (!all.await(2, TimeUnit.MINUTES)) {
            throw new IllegalStateException(
                    "latency: only " + (jobs * n - all.getCount()) + " of " + jobs * n + " handled");
        }
        double after = Load.now();
        for (Target t : targets) {
            t.close();
        }
        System.out.printf(
                Locale.ROOT,
                "%nRESULT %s latency enqueue -> handler, %,d jobs per side at %d/s%s, after %,d"
                        + " warm-up jobs per side (load %.2f -> %.2f):%n",
                broker,
                jobs,
                perSecond,
                n > 1 ? ", sides alternating every second" : "",
                warmup,
                before,
                after);
        for (int i = 0; i < n; i++) {
            Histogram h = total[i].getIntervalHistogram();
            Histogram s = sendCall[i];
            System.out.printf(
                    Locale.ROOT,
                    "  %-30s p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms (target p99 < 5 ms);"
                            + " the enqueue call alone (until acked): p50 %.2f ms, p99 %.2f ms%n",
                    targets.get(i).name(),
                    h.getValueAtPercentile(50) / 1000.0,
                    h.getValueAtPercentile(99) / 1000.0,
                    h.getValueAtPercentile(99.9) / 1000.0,
                    h.getMaxValue() / 1000.0,
                    s.getValueAtPercentile(50) / 1000.0,
                    s.getValueAtPercentile(99) / 1000.0);
        }
    }
}
