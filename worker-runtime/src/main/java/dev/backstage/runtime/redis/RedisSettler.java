package dev.backstage.runtime.redis;

import dev.backstage.runtime.core.NamedThreads;
import io.lettuce.core.Consumer;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XClaimArgs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.ObjIntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Settles the deliveries of one {@link RedisConsumer} (docs/wire-format.md) and keeps track of the entries
 * it holds until then:
 * <ul>
 *   <li>ack: batched XACK ({@link AckBatcher}), retried after a connection loss;
 *   <li>retry: the entry stays pending with {@code {p}:error:{id}} set, and this worker claims it back after
 *       the back-off delay (XCLAIM with min-idle = delay) — not after the crash threshold;
 *   <li>dead-letter in one atomic script: XADD {p}:{q}:dead-letter, XACK, DEL the failure record;
 *   <li>abandon: the entry stays pending for the reclaim of another worker (or of this one).
 * </ul>
 */
final class RedisSettler implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RedisSettler.class);
    private static final long ERROR_TTL_SECONDS = 3600;

    private record InFlight(String stream, long sinceNanos) {}

    private final RedisProvider provider;
    private final RedisSettings redis;
    private final Consumer<String> me;
    private final BooleanSupplier fetching;
    private final ObjIntConsumer<StreamMessage<String, String>> redeliver;
    private final java.util.function.Consumer<String> released;
    private final AckBatcher acks;
    private final ScheduledExecutorService timers;
    private final Map<String, InFlight> inFlight = new ConcurrentHashMap<>();
    private final Map<String, Boolean> awaitingRetry = new ConcurrentHashMap<>();

    /**
     * @param fetching  false once the consumer stops: a retry is then not claimed back (it stays pending)
     * @param redeliver hands an entry claimed back for a retry to the consumer, with its delivery count
     * @param released  told each entry this worker stops holding (settled or abandoned)
     */
    RedisSettler(
            RedisProvider provider,
            String consumerId,
            BooleanSupplier fetching,
            ObjIntConsumer<StreamMessage<String, String>> redeliver,
            java.util.function.Consumer<String> released) {
        this.provider = provider;
        this.redis = provider.settings();
        this.me = Consumer.from(redis.consumerGroup(), consumerId);
        this.fetching = fetching;
        this.redeliver = redeliver;
        this.released = released;
        this.acks = new AckBatcher(provider, redis.consumerGroup(), consumerId);
        this.timers = Executors.newScheduledThreadPool(1, new NamedThreads("backstage-redis-retries", true));
    }

    /** The entry is handed out: this worker holds it until it is settled or abandoned. */
    void track(String stream, String id) {
        inFlight.put(id, new InFlight(stream, System.nanoTime()));
    }

    /** An entry nobody runs ({@code _init}, docs/wire-format.md): acked so it cannot sit pending forever. */
    void skip(String stream, String id) {
        acks.ack(stream, id);
        release(id);
    }

    /** A claimed entry that was deleted from the stream: dropped from the pending list. */
    void dropDeleted(String stream, String id) {
        acks.ack(stream, id);
    }

    /** True while this worker runs the entry or waits to claim it back for a retry. */
    boolean holds(String id) {
        return inFlight.containsKey(id) || awaitingRetry.containsKey(id);
    }

    /** Entries this worker has been running for longer than {@code ms}: id → stream. */
    Map<String, String> longRunning(long ms) {
        long threshold = TimeUnit.MILLISECONDS.toNanos(ms);
        long now = System.nanoTime();
        Map<String, String> out = new LinkedHashMap<>();
        inFlight.forEach((id, f) -> {
            if (now - f.sinceNanos() > threshold) {
                out.put(id, f.stream());
            }
        });
        return out;
    }

    /** Acks that failed and wait for a retry. */
    int acksRetrying() {
        return acks.retrying();
    }

    private void release(String id) {
        inFlight.remove(id);
        released.accept(id);
    }

    CompletionStage<Void> ack(RedisDelivery delivery) {
        release(delivery.deliveryId());
        return acks.ack(delivery.stream(), delivery.deliveryId());
    }

    void abandon(RedisDelivery delivery) {
        release(delivery.deliveryId());
    }

    /**
     * Leave the entry pending with its failure record, and claim it back after {@code delay}. If this
     * worker stops first, the entry is reclaimed by another after the idle threshold.
     */
    CompletionStage<Void> retry(RedisDelivery delivery, Duration delay, String error) {
        String id = delivery.deliveryId();
        awaitingRetry.put(id, Boolean.TRUE);
        release(id);
        CompletionStage<Void> recorded = error == null
                ? CompletableFuture.completedFuture(null)
                : provider.async()
                        .set(provider.keys().error(delivery.stream(), id), error, SetArgs.Builder.ex(ERROR_TTL_SECONDS))
                        .thenCompose(ok -> provider.awaitReplicasAsync(delivery.stream()));
        timers.schedule(() -> claimBack(delivery, delay), Math.max(0, delay.toMillis()), TimeUnit.MILLISECONDS);
        return recorded;
    }

    private void claimBack(RedisDelivery delivery, Duration delay) {
        String id = delivery.deliveryId();
        try {
            if (!fetching.getAsBoolean()) {
                return; // stopping: the entry stays pending for another worker
            }
            List<StreamMessage<String, String>> claimed =
                    provider.sync().xclaim(delivery.stream(), me, XClaimArgs.Builder.minIdleTime(delay.toMillis()), id);
            if (claimed.isEmpty()) {
                log.debug("retry of {} not claimed back: another consumer took it or it is gone", id);
                return;
            }
            StreamMessage<String, String> message = claimed.get(0);
            if (message.getBody() == null) {
                dropDeleted(delivery.stream(), id);
                return;
            }
            redeliver.accept(message, delivery.deliveryCount() + 1);
        } catch (RuntimeException e) {
            log.warn(
                    "claiming back {} for retry failed: {}; the reclaimer will pick it up after the idle threshold",
                    id,
                    e.toString());
        } finally {
            awaitingRetry.remove(id);
        }
    }

    CompletionStage<Void> deadLetter(RedisDelivery delivery, String error) {
        String id = delivery.deliveryId();
        List<String> args = new ArrayList<>();
        args.add(redis.consumerGroup());
        args.add(id);
        args.add(redis.deleteOnAck() ? "1" : "0");
        Map<String, String> fields = new LinkedHashMap<>(delivery.body());
        fields.putIfAbsent("taskName", "");
        fields.put(
                "originalId",
                id); // with a redriven entry's own jobId field (copied above), a redrive restores the job id
        fields.put("deliveryCount", Integer.toString(delivery.deliveryCount()));
        fields.put("deadLetteredAt", Long.toString(System.currentTimeMillis()));
        fields.put("error", error == null ? "" : error);
        fields.forEach((k, v) -> {
            args.add(k);
            args.add(v);
        });
        String queue =
                delivery.queue() != null ? delivery.queue() : provider.keys().queueOf(delivery.stream());
        String[] keys = {
            provider.keys().deadLetter(queue),
            delivery.stream(),
            provider.keys().error(delivery.stream(), id)
        };
        return provider.async()
                .<String>eval(RedisScripts.DEAD_LETTER, ScriptOutputType.VALUE, keys, args.toArray(String[]::new))
                .thenCompose(dlId -> provider.awaitReplicasAsync(delivery.stream()))
                .thenApply(done -> {
                    release(id);
                    return (Void) null;
                });
    }

    /** Stops the retry timers (pending retries stay pending for the reclaim) and flushes the acks. */
    @Override
    public void close() {
        timers.shutdownNow();
        acks.close();
    }
}
