package dev.backstage.runtime.core;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads that run handlers: exactly {@code concurrency} of them, taking deliveries first in, first out.
 *
 * <p>A {@link ForkJoinPool} in async (FIFO) mode rather than a {@code ThreadPoolExecutor}: with one shared
 * {@code LinkedBlockingQueue}, every hand-off and every take goes through one of two locks, and with more
 * handler threads than cores a descheduled lock holder parks the rest (a lock convoy); at Kafka rates that
 * cost more than the no-op jobs themselves. The fork/join pool's submission queues are lock-free and idle
 * threads are woken only when work is waiting for them.
 *
 * <p>The pool never grows past {@code concurrency}: a handler that blocks (I/O, {@code Future.get}) keeps its
 * slot instead of making the pool add a compensating thread, so the concurrency setting is a hard limit, as
 * users read it.
 */
final class HandlerPool {
    private static final Logger log = LoggerFactory.getLogger(HandlerPool.class);

    private HandlerPool() {}

    static ExecutorService create(String prefix, int concurrency) {
        AtomicInteger counter = new AtomicInteger();
        ForkJoinPool.ForkJoinWorkerThreadFactory threads = pool -> {
            ForkJoinWorkerThread thread = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
            thread.setName(prefix + "-" + counter.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
        return new ForkJoinPool(
                concurrency,
                threads,
                (thread, error) -> log.error("uncaught failure on {}", thread.getName(), error),
                true, // FIFO: deliveries run in the order they were handed out
                0,
                concurrency,
                1,
                pool -> true, // at the limit, a blocking handler just blocks (no extra thread, no exception)
                60,
                TimeUnit.SECONDS);
    }
}
