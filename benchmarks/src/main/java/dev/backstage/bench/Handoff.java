package dev.backstage.bench;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a hand-written consumer does to run jobs in parallel as the Worker does: a fixed pool of
 * {@code concurrency} handler threads and an in-flight allowance of {@code prefetch} jobs (the fetching thread
 * takes a permit per job, the handler gives it back after the ack).
 */
final class Handoff implements AutoCloseable {
    final ExecutorService pool;
    final Semaphore room;

    Handoff(String name, int concurrency, int prefetch) {
        AtomicInteger n = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(concurrency, r -> {
            Thread t = new Thread(r, name + "-handler-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.room = new Semaphore(prefetch);
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
