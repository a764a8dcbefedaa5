package dev.backstage.operator.admission;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The webhook server's executor: a fixed number of threads, a bounded queue, and a deadline per exchange.
 *
 * <p>The JDK HTTP server runs each exchange (TLS handshake, request line, headers, body, handler, answer) on one
 * executor thread, reading the connection with blocking reads that have no timeout of their own. A client that sends
 * part of a request and stalls would hold that thread for as long as it keeps the connection open. The connection's
 * channel is interruptible, so an exchange still running at its deadline is interrupted: the blocked read fails, the
 * channel closes, the server drops the connection and the thread is free. A new connection that finds every thread
 * busy and the queue full is rejected, and the server closes it (the API server retries or applies its failure
 * policy) instead of queueing without bound.
 */
final class DeadlineExecutor implements Executor, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DeadlineExecutor.class);

    private final ThreadPoolExecutor pool;
    private final ScheduledExecutorService alarms;
    private final long deadlineNanos;

    DeadlineExecutor(WebhookLimits limits) {
        AtomicInteger threads = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(
                limits.threads(),
                limits.threads(),
                WebhookLimits.IDLE_THREAD_LIFETIME.toMillis(),
                TimeUnit.MILLISECONDS,
                limits.queued() == 0 ? new SynchronousQueue<>() : new ArrayBlockingQueue<>(limits.queued()),
                r -> daemon(r, "admission-webhook-" + threads.incrementAndGet()),
                new ThreadPoolExecutor.AbortPolicy());
        // Threads start as exchanges arrive (one per exchange up to the limit, before any waits in the queue) and
        // end when idle, so the limit costs nothing while the webhook is quiet.
        pool.allowCoreThreadTimeOut(true);
        this.alarms = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "admission-webhook-deadline"));
        this.deadlineNanos = limits.requestDeadline().toNanos();
    }

    @Override
    public void execute(Runnable exchange) {
        pool.execute(() -> runWithDeadline(exchange));
    }

    private void runWithDeadline(Runnable exchange) {
        Guard guard = new Guard(Thread.currentThread());
        ScheduledFuture<?> alarm = alarms.schedule(guard::expire, deadlineNanos, TimeUnit.NANOSECONDS);
        try {
            exchange.run();
        } finally {
            boolean expired = guard.finish();
            alarm.cancel(false);
            Thread.interrupted(); // an interrupt meant for this exchange must not reach the next one
            if (expired) {
                LOG.info(
                        "closed an admission connection whose request was not done within {} ms (a slow or stalled"
                                + " client)",
                        TimeUnit.NANOSECONDS.toMillis(deadlineNanos));
            }
        }
    }

    @Override
    public void close() {
        pool.shutdownNow();
        alarms.shutdownNow();
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** Interrupts its thread at the deadline, unless the exchange finished first. */
    private static final class Guard {
        private final Thread thread;
        private boolean finished;
        private boolean expired;

        Guard(Thread thread) {
            this.thread = thread;
        }

        synchronized void expire() {
            if (!finished) {
                expired = true;
                thread.interrupt();
            }
        }

        /** @return whether the deadline interrupted the exchange */
        synchronized boolean finish() {
            finished = true;
            return expired;
        }
    }
}
