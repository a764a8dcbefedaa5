package dev.backstage.runtime.redis;

import dev.backstage.runtime.core.NamedThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Batches XACKs per stream (docs/wire-format.md): flushed every {@code flushInterval}, or at once when
 * {@code batchSize} ids wait for one stream. Each ack's future completes when its batch is acked.
 *
 * <p>A batch that fails (the connection dropped, a command timed out during an outage) is sent again with a
 * back-off (100 ms doubling to 5 s) for up to {@link #RETRY_WINDOW}, so an outage does not turn into a second
 * run of every job that finished during it once the idle threshold passes. XACK is idempotent, so a retry of
 * an ack that did reach Redis costs nothing. At most {@link #MAX_RETRYING} ids wait for a retry; beyond that
 * (and after the window) the ack is given up with a warning and the entry is redelivered as before.
 */
final class AckBatcher implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AckBatcher.class);
    static final Duration RETRY_WINDOW = Duration.ofMinutes(5);
    static final int MAX_RETRYING = 100_000;

    private record PendingAck(String id, CompletableFuture<Void> done) {}

    private record Retry(String stream, List<PendingAck> batch, long firstFailedNanos, int attempt, long dueNanos) {}

    private final RedisProvider provider;
    private final String group;
    private final int batchSize;
    private final Duration flushInterval;
    private final boolean deleteOnAck;
    private final Map<String, ConcurrentLinkedQueue<PendingAck>> queues = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Retry> retries = new ConcurrentLinkedQueue<>();
    private final AtomicInteger retrying = new AtomicInteger();
    private final AtomicInteger waiting = new AtomicInteger();
    private final Thread flusher;
    private volatile boolean running = true;

    AckBatcher(RedisProvider provider, String group, String consumerId) {
        this.provider = provider;
        this.group = group;
        this.batchSize = provider.settings().ackBatchSize();
        this.flushInterval = provider.settings().ackFlushInterval();
        this.deleteOnAck = provider.settings().deleteOnAck();
        this.flusher = new NamedThreads("backstage-redis-acks-" + consumerId, true).newThread(this::loop);
        flusher.start();
    }

    CompletableFuture<Void> ack(String stream, String id) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        queues.computeIfAbsent(stream, s -> new ConcurrentLinkedQueue<>()).add(new PendingAck(id, done));
        if (waiting.incrementAndGet() >= batchSize) {
            LockSupport.unpark(flusher);
        }
        return done;
    }

    /** Ids whose ack failed and waits for a retry. */
    int retrying() {
        return retrying.get();
    }

    private void loop() {
        while (running) {
            LockSupport.parkNanos(flushInterval.toNanos());
            try {
                flush();
                retryDue(false);
            } catch (RuntimeException e) {
                log.warn("ack flush failed (retried with the next flush): {}", e.toString());
            }
        }
    }

    /** Sends every waiting ack, one XACK per stream per batch. */
    void flush() {
        for (Map.Entry<String, ConcurrentLinkedQueue<PendingAck>> entry : queues.entrySet()) {
            ConcurrentLinkedQueue<PendingAck> queue = entry.getValue();
            while (!queue.isEmpty()) {
                List<PendingAck> batch = new ArrayList<>(batchSize);
                PendingAck next;
                while (batch.size() < batchSize && (next = queue.poll()) != null) {
                    batch.add(next);
                }
                if (batch.isEmpty()) {
                    break;
                }
                waiting.addAndGet(-batch.size());
                send(entry.getKey(), batch, null);
            }
        }
    }

    /** Sends the failed batches whose back-off is over (all of them when {@code now} is set). */
    private void retryDue(boolean all) {
        long now = System.nanoTime();
        int count = retries.size();
        for (int i = 0; i < count; i++) {
            Retry retry = retries.poll();
            if (retry == null) {
                return;
            }
            if (!all && retry.dueNanos() - now > 0) {
                retries.add(retry);
                continue;
            }
            retrying.addAndGet(-retry.batch().size());
            send(retry.stream(), retry.batch(), retry);
        }
    }

    private void send(String stream, List<PendingAck> batch, Retry previous) {
        String[] ids = batch.stream().map(PendingAck::id).toArray(String[]::new);
        CompletableFuture<?> done;
        try {
            var acked = provider.async().xack(stream, group, ids);
            done = (deleteOnAck ? acked.thenCompose(n -> provider.async().xdel(stream, ids)) : acked)
                    .thenCompose(n -> provider.awaitReplicasAsync(stream))
                    .toCompletableFuture();
        } catch (RuntimeException e) {
            done = CompletableFuture.failedFuture(e);
        }
        done.whenComplete((n, error) -> {
            if (error == null) {
                if (previous != null) {
                    log.info(
                            "ack of {} entries on {} went through on attempt {}",
                            batch.size(),
                            stream,
                            previous.attempt() + 1);
                }
                batch.forEach(ack -> ack.done().complete(null));
            } else {
                failed(stream, batch, previous, error);
            }
        });
    }

    private void failed(String stream, List<PendingAck> batch, Retry previous, Throwable error) {
        long now = System.nanoTime();
        long firstFailed = previous == null ? now : previous.firstFailedNanos();
        int attempt = previous == null ? 1 : previous.attempt() + 1;
        boolean inWindow = now - firstFailed < RETRY_WINDOW.toNanos();
        if (inWindow && retrying.get() + batch.size() <= MAX_RETRYING) {
            long backoffMs = Math.min(5_000, 100L << Math.min(attempt - 1, 6));
            if (previous == null) {
                log.warn(
                        "ack of {} entries on {} failed: {}; retrying for up to {} s",
                        batch.size(),
                        stream,
                        error.toString(),
                        RETRY_WINDOW.toSeconds());
            }
            retrying.addAndGet(batch.size());
            retries.add(new Retry(stream, batch, firstFailed, attempt, now + TimeUnit.MILLISECONDS.toNanos(backoffMs)));
            return;
        }
        log.warn(
                "ack of {} entries on {} given up after {} attempts: {}; they stay pending and run again after the"
                        + " idle threshold",
                batch.size(),
                stream,
                attempt,
                error.toString());
        batch.forEach(ack -> ack.done().completeExceptionally(error));
    }

    /** Flushes what is waiting (and what waits for a retry) and waits (bounded) for the replies. */
    @Override
    public void close() {
        running = false;
        LockSupport.unpark(flusher);
        try {
            flusher.join(TimeUnit.SECONDS.toMillis(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<CompletableFuture<Void>> outstanding = new ArrayList<>();
        queues.values().forEach(q -> q.forEach(a -> outstanding.add(a.done())));
        retries.forEach(r -> r.batch().forEach(a -> outstanding.add(a.done())));
        flush();
        retryDue(true);
        try {
            CompletableFuture.allOf(outstanding.toArray(CompletableFuture[]::new))
                    .get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            log.warn("final ack flush did not complete: {}; those entries stay pending", e.toString());
        }
    }
}
