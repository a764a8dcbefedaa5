package dev.backstage.bench;

import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Recorder;

/**
 * Enqueue → handler start latency at low load: {@code jobs} jobs (20,000 by default, so p99 rests on 200
 * samples above it) sent through the worker's own {@code enqueue} at a fixed rate, each carrying its send time.
 */
final class Latency {
    private Latency() {}

    static void measure(String broker, Worker worker, int jobs, int perSecond) throws Exception {
        Recorder recorder = new Recorder(3);
        CountDownLatch all = new CountDownLatch(jobs);
        worker.register("ping", Map.class, (ctx, p) -> {
            recorder.recordValue(Math.max(0, (System.nanoTime() - ((Number) p.get("sentNanos")).longValue()) / 1_000));
            all.countDown();
            return Next.done();
        });
        worker.start();
        double before = Load.now();
        long interval = 1_000_000_000L / perSecond;
        long next = System.nanoTime();
        for (int i = 0; i < jobs; i++) {
            next += interval;
            while (System.nanoTime() < next) {
                LockSupport.parkNanos(next - System.nanoTime());
            }
            worker.enqueue("ping", Map.of("sentNanos", System.nanoTime()));
        }
        if (!all.await(2, TimeUnit.MINUTES)) {
            throw new IllegalStateException("latency: only " + (jobs - all.getCount()) + " of " + jobs + " handled");
        }
        worker.close();
        var h = recorder.getIntervalHistogram();
        System.out.printf(Locale.ROOT, "%nRESULT %s latency enqueue -> handler, %,d jobs at %d/s (load %.2f -> %.2f): p50 %.2f ms,"
                + " p99 %.2f ms, p99.9 %.2f ms, max %.2f ms (target p99 < 5 ms)%n", broker, h.getTotalCount(), perSecond,
                before, Load.now(), h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0,
                h.getValueAtPercentile(99.9) / 1000.0, h.getMaxValue() / 1000.0);
    }
}
