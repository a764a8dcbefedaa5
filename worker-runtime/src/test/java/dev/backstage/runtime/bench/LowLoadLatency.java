package dev.backstage.runtime.bench;

import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/** Enqueue → handler start latency at low load (one job every 4 ms), the same for every provider. */
final class LowLoadLatency {
    static final int JOBS = 1_000;

    private LowLoadLatency() {}

    /** Registers a "ping" task on a fresh worker, starts it, sends the jobs and closes the worker. */
    static Histogram measure(Worker worker) throws InterruptedException {
        Histogram histogram = new Histogram(TimeUnit.SECONDS.toMicros(10), 3);
        AtomicLong handled = new AtomicLong();
        worker.register("ping", Map.class, (ctx, p) -> {
            long sentNanos = ((Number) p.get("sentNanos")).longValue();
            synchronized (histogram) {
                histogram.recordValue(Math.max(0, (System.nanoTime() - sentNanos) / 1_000));
            }
            handled.incrementAndGet();
            return Next.done();
        });
        worker.start();
        for (int i = 0; i < JOBS; i++) {
            worker.enqueue("ping", Map.of("sentNanos", System.nanoTime()));
            Thread.sleep(4);
        }
        while (handled.get() < JOBS) {
            Thread.sleep(5);
        }
        worker.close();
        return histogram;
    }
}
