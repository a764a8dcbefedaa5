package dev.backstage.runtime.redis;

import dev.backstage.runtime.core.NamedThreads;
import dev.backstage.runtime.spi.ConsumerSettings;
import dev.backstage.runtime.spi.DeliverySink;
import dev.backstage.runtime.spi.JobConsumer;
import io.lettuce.core.Consumer;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XClaimArgs;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.XReadArgs.StreamOffset;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker's consumer on a set of streams (WIRE.md §1.5–§1.9, §8): the fetch loop and the settlement
 * mechanics. Recovery (heartbeat, own leftovers, dead-worker takeover, idle reclaim) is {@link RedisReclaimer}'s.
 * <ul>
 *   <li>a fetch loop on its own connection: XREADGROUP for at most the free in-flight allowance;
 *   <li>batched XACK ({@link AckBatcher}), retried after a connection loss;
 *   <li>handled failures: the entry stays pending with {@code {p}:error:{id}} set, and this worker claims
 *       it back after the back-off delay (XCLAIM with min-idle = delay) — not after the crash threshold;
 *   <li>dead-letter in one atomic script: XADD {p}:{q}:dead-letter, XACK, DEL the failure record.
 * </ul>
 */
final class RedisConsumer implements JobConsumer {
    private static final Logger log = LoggerFactory.getLogger(RedisConsumer.class);
    private static final long ERROR_TTL_SECONDS = 3600;
    private static final Duration BATCH_WAIT = Duration.ofMillis(5);

    private record InFlight(String stream, long sinceNanos) {}

    private final RedisProvider provider;
    private final RedisSettings redis;
    private final ConsumerSettings settings;
    private final DeliverySink sink;
    private final Consumer<String> me;
    private final Map<String, String> queueByStream = new LinkedHashMap<>();
    private final AckBatcher acks;
    private final ScheduledExecutorService timers;
    private final RedisReclaimer reclaimer;
    private final Map<String, InFlight> inFlight = new ConcurrentHashMap<>();
    private final Map<String, Boolean> awaitingRetry = new ConcurrentHashMap<>();
    private final Thread fetcher;
    private volatile boolean fetching = true;
    private volatile String failure;

    RedisConsumer(RedisProvider provider, ConsumerSettings settings, DeliverySink sink) {
        this.provider = provider;
        this.redis = provider.settings();
        this.settings = settings;
        this.sink = sink;
        this.me = Consumer.from(redis.consumerGroup(), settings.consumerId());
        for (String queue : settings.queues()) {
            queueByStream.put(provider.keys().stream(queue), queue);
        }
        this.acks = new AckBatcher(provider, redis.consumerGroup(), settings.consumerId());
        this.timers = Executors.newScheduledThreadPool(1, new NamedThreads("backstage-redis-retries", true));
        this.reclaimer = new RedisReclaimer(this, provider, settings.consumerId(), List.copyOf(queueByStream.keySet()),
                Math.max(settings.prefetch(), settings.flow().capacity()));
        this.fetcher = new NamedThreads("backstage-redis-fetch-" + settings.consumerId(), true).newThread(this::fetchLoop);
    }

    void start() {
        ensureGroups();
        reclaimer.start();
        fetcher.start();
    }

    /** XGROUP CREATE … 0 MKSTREAM per stream; BUSYGROUP means it exists. */
    void ensureGroups() {
        for (String stream : queueByStream.keySet()) {
            try {
                provider.sync().xgroupCreate(StreamOffset.from(stream, "0"), redis.consumerGroup(),
                        XGroupCreateArgs.Builder.mkstream());
            } catch (RedisCommandExecutionException e) {
                if (!String.valueOf(e.getMessage()).startsWith("BUSYGROUP")) {
                    throw e;
                }
            }
        }
    }

    boolean fetching() {
        return fetching;
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

    void dropDeleted(String stream, String id) {
        acks.ack(stream, id);
    }

    @Override
    public Optional<String> failure() {
        String f = failure;
        return f != null ? Optional.of(f) : reclaimer.failure();
    }

    private void fetchLoop() {
        try {
            fetchUntilStopped();
        } catch (Throwable e) {
            failure = "redis fetch loop of " + settings.consumerId() + " stopped: " + e;
            log.error("fetch loop failed; this worker takes no new jobs", e);
            throw e;
        }
    }

    private void fetchUntilStopped() {
        StatefulRedisConnection<String, String> connection = null;
        long backoffMs = 100;
        @SuppressWarnings("unchecked")
        StreamOffset<String>[] offsets = queueByStream.keySet().stream()
                .map(StreamOffset::lastConsumed).toArray(StreamOffset[]::new);
        while (fetching) {
            try {
                if (connection == null) {
                    connection = provider.dedicatedConnection();
                }
                int batch = Math.min(settings.prefetch(), settings.flow().capacity());
                // Under load, wait briefly for a quarter of the allowance so reads stay large.
                int free = settings.flow().awaitFree(Math.max(1, batch / 4), BATCH_WAIT);
                if (free == 0) {
                    free = settings.flow().awaitFree(1, Duration.ofMillis(500));
                }
                if (free == 0 || !fetching) {
                    continue;
                }
                int wanted = Math.min(batch, free);
                // COUNT applies per stream: split the allowance so one read never exceeds it.
                int perStream = Math.max(1, (wanted + offsets.length - 1) / offsets.length);
                List<StreamMessage<String, String>> messages = connection.sync().xreadgroup(me,
                        XReadArgs.Builder.count(perStream).block(redis.blockTimeout()), offsets);
                backoffMs = 100;
                List<RedisDelivery> deliveries = new ArrayList<>(messages.size());
                for (StreamMessage<String, String> message : messages) {
                    RedisDelivery delivery = delivery(message, 1);
                    if (delivery != null) {
                        deliveries.add(delivery);
                    }
                }
                sink.acceptAll(deliveries); // one hand-off per read
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (RedisCommandExecutionException e) {
                if (String.valueOf(e.getMessage()).startsWith("NOGROUP")) {
                    log.warn("consumer group missing on {} (stream deleted?): re-creating it", queueByStream.keySet());
                    safely(this::ensureGroups);
                } else {
                    backoffMs = pause("XREADGROUP failed", e, backoffMs);
                }
            } catch (RuntimeException e) {
                if (!fetching) {
                    break;
                }
                backoffMs = pause("reading from redis failed", e, backoffMs);
            }
        }
        if (connection != null) {
            connection.close();
        }
    }

    private long pause(String what, RuntimeException e, long backoffMs) {
        log.warn("{}: {}; retrying in {} ms", what, e.getMessage(), backoffMs);
        try {
            Thread.sleep(backoffMs);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            fetching = false;
        }
        return Math.min(backoffMs * 2, 5_000);
    }

    void dispatch(StreamMessage<String, String> message, int deliveryCount) {
        RedisDelivery delivery = delivery(message, deliveryCount);
        if (delivery != null) {
            sink.accept(delivery);
        }
    }

    /** The entry as a delivery, tracked as in flight; null for an {@code _init} entry (acked and skipped). */
    private RedisDelivery delivery(StreamMessage<String, String> message, int deliveryCount) {
        String stream = message.getStream();
        Map<String, String> body = message.getBody();
        if (body != null && body.containsKey("_init")) {
            // WIRE.md §8: never written by anyone; ack and skip so it cannot sit pending forever.
            acks.ack(stream, message.getId());
            reclaimer.settled(message.getId());
            return null;
        }
        inFlight.put(message.getId(), new InFlight(stream, System.nanoTime()));
        return new RedisDelivery(this, stream, queueByStream.get(stream), message.getId(),
                body == null ? Map.of() : body, deliveryCount);
    }

    private void released(String id) {
        inFlight.remove(id);
        reclaimer.settled(id);
    }

    CompletionStage<Void> ack(RedisDelivery delivery) {
        released(delivery.deliveryId());
        return acks.ack(delivery.stream(), delivery.deliveryId());
    }

    void abandon(RedisDelivery delivery) {
        released(delivery.deliveryId());
    }

    /**
     * Leave the entry pending with its failure record, and claim it back after {@code delay}. If this
     * worker stops first, the entry is reclaimed by another after the idle threshold.
     */
    CompletionStage<Void> retry(RedisDelivery delivery, Duration delay, String error) {
        String id = delivery.deliveryId();
        awaitingRetry.put(id, Boolean.TRUE);
        released(id);
        CompletionStage<Void> recorded = error == null ? CompletableFuture.completedFuture(null)
                : provider.async().set(provider.keys().error(id), error,
                        io.lettuce.core.SetArgs.Builder.ex(ERROR_TTL_SECONDS)).thenApply(ok -> null);
        timers.schedule(() -> claimBack(delivery, delay), Math.max(0, delay.toMillis()), TimeUnit.MILLISECONDS);
        return recorded;
    }

    private void claimBack(RedisDelivery delivery, Duration delay) {
        String id = delivery.deliveryId();
        try {
            if (!fetching) {
                return; // stopping: the entry stays pending for another worker
            }
            List<StreamMessage<String, String>> claimed = provider.sync().xclaim(delivery.stream(), me,
                    XClaimArgs.Builder.minIdleTime(delay.toMillis()), id);
            if (claimed.isEmpty()) {
                log.debug("retry of {} not claimed back: another consumer took it or it is gone", id);
                return;
            }
            StreamMessage<String, String> message = claimed.get(0);
            if (message.getBody() == null) {
                acks.ack(delivery.stream(), id); // deleted from the stream: drop it from the pending list
                return;
            }
            dispatch(message, delivery.deliveryCount() + 1);
        } catch (RuntimeException e) {
            log.warn("claiming back {} for retry failed: {}; the reclaimer will pick it up after the idle threshold",
                    id, e.toString());
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
        fields.put("originalId", id); // with a redriven entry's own jobId field (copied above), a redrive restores the job id
        fields.put("deliveryCount", Integer.toString(delivery.deliveryCount()));
        fields.put("deadLetteredAt", Long.toString(System.currentTimeMillis()));
        fields.put("error", error == null ? "" : error);
        fields.forEach((k, v) -> {
            args.add(k);
            args.add(v);
        });
        String queue = delivery.queue() != null ? delivery.queue() : provider.keys().queueOf(delivery.stream());
        String[] keys = {provider.keys().deadLetter(queue), delivery.stream(), provider.keys().error(id)};
        return provider.async().<String>eval(RedisScripts.DEAD_LETTER, ScriptOutputType.VALUE, keys,
                args.toArray(String[]::new)).thenApply(dlId -> {
                    released(id);
                    return (Void) null;
                });
    }

    private static void safely(Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            log.warn("{}", e.toString());
        }
    }

    @Override
    public void stopFetching() {
        fetching = false;
        try {
            fetcher.join(redis.blockTimeout().toMillis() + 2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (fetching) {
            stopFetching();
        }
        timers.shutdownNow();
        acks.close();
        reclaimer.close();
    }
}
