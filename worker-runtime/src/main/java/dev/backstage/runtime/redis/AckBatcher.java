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
 * Batches XACKs per stream (WIRE.md §1.6): flushed every {@code flushInterval}, or at once when
 * {@code batchSize} ids wait for one stream. Each ack's future completes when its batch is acked.
 */
final class AckBatcher implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AckBatcher.class);

    private record PendingAck(String id, CompletableFuture<Void> done) {}

    private final RedisProvider provider;
    private final String group;
    private final int batchSize;
    private final Duration flushInterval;
    private final boolean deleteOnAck;
    private final Map<String, ConcurrentLinkedQueue<PendingAck>> queues = new ConcurrentHashMap<>();
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

    private void loop() {
        while (running) {
            LockSupport.parkNanos(flushInterval.toNanos());
            try {
                flush();
            } catch (RuntimeException e) {
                log.warn("ack flush failed (entries stay pending and will be retried by the reclaimer): {}",
                        e.toString());
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
                send(entry.getKey(), batch);
            }
        }
    }

    private void send(String stream, List<PendingAck> batch) {
        String[] ids = batch.stream().map(PendingAck::id).toArray(String[]::new);
        var acked = provider.async().xack(stream, group, ids);
        var done = deleteOnAck ? acked.thenCompose(n -> provider.async().xdel(stream, ids)) : acked;
        done.whenComplete((n, error) -> {
            for (PendingAck ack : batch) {
                if (error == null) {
                    ack.done().complete(null);
                } else {
                    ack.done().completeExceptionally(error);
                }
            }
        });
    }

    /** Flushes what is waiting and waits (bounded) for the replies, then stops the flusher. */
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
        flush();
        try {
            CompletableFuture.allOf(outstanding.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            log.warn("final ack flush did not complete: {}; those entries stay pending", e.toString());
        }
    }
}
