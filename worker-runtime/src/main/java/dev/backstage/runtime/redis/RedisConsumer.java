package dev.backstage.runtime.redis;

import dev.backstage.runtime.core.NamedThreads;
import dev.backstage.runtime.spi.ConsumerSettings;
import dev.backstage.runtime.spi.DeliverySink;
import dev.backstage.runtime.spi.JobConsumer;
import io.lettuce.core.Consumer;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XClaimArgs;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XPendingArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.XReadArgs.StreamOffset;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.models.stream.PendingMessage;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker's consumer on a set of streams (WIRE.md §1.5–§1.9, §8):
 * <ul>
 *   <li>a fetch loop on its own connection: XREADGROUP for at most the free in-flight allowance;
 *   <li>batched XACK ({@link AckBatcher});
 *   <li>handled failures: the entry stays pending with {@code {p}:error:{id}} set, and this worker claims
 *       it back after the back-off delay (XCLAIM with min-idle = delay) — not after the crash threshold;
 *   <li>a reclaimer that takes entries idle longer than {@code idleTimeout} from crashed or stuck
 *       consumers, and keeps this worker's own long-running entries fresh (XCLAIM JUSTID resets their idle
 *       time without counting a delivery) so they are not stolen while still running;
 *   <li>dead-letter in one atomic script: XADD {p}:{q}:dead-letter, XACK, DEL the failure record;
 *   <li>a heartbeat in {@code {p}:workers:{group}}: when a Java worker stops writing it (it crashed), the
 *       others take its pending entries after {@code deadWorkerTimeout} (10 s) instead of the 60 s idle
 *       threshold. Seed workers write no heartbeat, so their entries keep the idle rule.
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
    private final Map<String, InFlight> inFlight = new ConcurrentHashMap<>();
    private final Map<String, Boolean> awaitingRetry = new ConcurrentHashMap<>();
    private final Thread fetcher;
    private volatile boolean fetching = true;

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
        this.timers = Executors.newScheduledThreadPool(1, new NamedThreads("backstage-redis-reclaimer", true));
        this.fetcher = new NamedThreads("backstage-redis-fetch-" + settings.consumerId(), true).newThread(this::fetchLoop);
    }

    void start() {
        ensureGroups();
        fetcher.start();
        heartbeat();
        long beat = Math.max(100, Math.min(redis.reclaimInterval().toMillis(), redis.deadWorkerTimeout().toMillis() / 3));
        timers.scheduleWithFixedDelay(this::heartbeat, beat, beat, TimeUnit.MILLISECONDS);
        long tick = redis.reclaimInterval().toMillis();
        timers.scheduleWithFixedDelay(this::reclaimTick, tick, tick, TimeUnit.MILLISECONDS);
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

    private void fetchLoop() {
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
                for (StreamMessage<String, String> message : messages) {
                    dispatch(message, 1);
                }
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

    private void dispatch(StreamMessage<String, String> message, int deliveryCount) {
        String stream = message.getStream();
        Map<String, String> body = message.getBody();
        if (body != null && body.containsKey("_init")) {
            // WIRE.md §8: never written by anyone; ack and skip so it cannot sit pending forever.
            acks.ack(stream, message.getId());
            return;
        }
        inFlight.put(message.getId(), new InFlight(stream, System.nanoTime()));
        sink.accept(new RedisDelivery(this, stream, queueByStream.get(stream), message.getId(),
                body == null ? Map.of() : body, deliveryCount));
    }

    CompletionStage<Void> ack(RedisDelivery delivery) {
        inFlight.remove(delivery.jobId());
        return acks.ack(delivery.stream(), delivery.jobId());
    }

    void abandon(RedisDelivery delivery) {
        inFlight.remove(delivery.jobId());
    }

    /**
     * Leave the entry pending with its failure record, and claim it back after {@code delay}. If this
     * worker stops first, the entry is reclaimed by another after the idle threshold.
     */
    CompletionStage<Void> retry(RedisDelivery delivery, Duration delay, String error) {
        String id = delivery.jobId();
        inFlight.remove(id);
        awaitingRetry.put(id, Boolean.TRUE);
        CompletionStage<Void> recorded = error == null ? CompletableFuture.completedFuture(null)
                : provider.async().set(provider.keys().error(id), error,
                        io.lettuce.core.SetArgs.Builder.ex(ERROR_TTL_SECONDS)).thenApply(ok -> null);
        timers.schedule(() -> claimBack(delivery, delay), Math.max(0, delay.toMillis()), TimeUnit.MILLISECONDS);
        return recorded;
    }

    private void claimBack(RedisDelivery delivery, Duration delay) {
        String id = delivery.jobId();
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
        String id = delivery.jobId();
        List<String> args = new ArrayList<>();
        args.add(redis.consumerGroup());
        args.add(id);
        args.add(redis.deleteOnAck() ? "1" : "0");
        Map<String, String> fields = new LinkedHashMap<>(delivery.body());
        fields.putIfAbsent("taskName", "");
        fields.put("originalId", id);
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
                    inFlight.remove(id);
                    return (Void) null;
                });
    }

    private void heartbeat() {
        try {
            provider.sync().hset(provider.keys().workers(redis.consumerGroup()), settings.consumerId(),
                    Long.toString(System.currentTimeMillis()));
        } catch (RuntimeException e) {
            log.warn("heartbeat failed: {}; next in {} ms", e.toString(), redis.reclaimInterval().toMillis());
        }
    }

    private void reclaimTick() {
        try {
            refreshLongRunning();
            reclaimFromDeadWorkers();
            for (String stream : queueByStream.keySet()) {
                if (!fetching) {
                    return;
                }
                int free = settings.flow().free();
                if (free == 0) {
                    return;
                }
                reclaimIdle(stream, free);
            }
        } catch (RuntimeException e) {
            log.warn("reclaim pass failed: {}; next pass in {} ms", e.toString(), redis.reclaimInterval().toMillis());
        }
    }

    /** Takes entries idle past the threshold from other (crashed or stuck) consumers. */
    private void reclaimIdle(String stream, int free) {
        long idleMs = redis.idleTimeout().toMillis();
        List<PendingMessage> rows = provider.sync().xpending(stream,
                XPendingArgs.Builder.xpending(redis.consumerGroup(), Range.create("-", "+"), Limit.from(Math.max(10, free)))
                        .idle(idleMs));
        int taken = 0;
        for (PendingMessage row : rows) {
            if (taken >= free || !fetching) {
                return;
            }
            String id = row.getId();
            if (inFlight.containsKey(id) || awaitingRetry.containsKey(id)) {
                continue;
            }
            List<StreamMessage<String, String>> claimed = provider.sync().xclaim(stream, me,
                    XClaimArgs.Builder.minIdleTime(idleMs), id);
            if (claimed.isEmpty()) {
                continue;
            }
            StreamMessage<String, String> message = claimed.get(0);
            if (message.getBody() == null) {
                acks.ack(stream, id);
                continue;
            }
            log.info("reclaimed {} from {} on {} after {} ms idle (delivery {})", id, row.getConsumer(), stream,
                    row.getMsSinceLastDelivery(), row.getRedeliveryCount() + 1);
            dispatch(message, (int) row.getRedeliveryCount() + 1);
            taken++;
        }
    }

    /**
     * Takes every pending entry of Java workers whose heartbeat stopped, then forgets them. A min-idle of
     * one second keeps two rescuers from taking the same entry twice.
     */
    private void reclaimFromDeadWorkers() {
        String registry = provider.keys().workers(redis.consumerGroup());
        long deadline = System.currentTimeMillis() - redis.deadWorkerTimeout().toMillis();
        for (Map.Entry<String, String> worker : provider.sync().hgetall(registry).entrySet()) {
            Long lastBeat = JobEntryCodec.parseLong(worker.getValue());
            if (worker.getKey().equals(settings.consumerId()) || lastBeat == null || lastBeat > deadline) {
                continue;
            }
            boolean cleared = true;
            for (String stream : queueByStream.keySet()) {
                int free = settings.flow().free();
                if (!fetching || free == 0) {
                    return;
                }
                List<PendingMessage> rows = provider.sync().xpending(stream, Consumer.from(redis.consumerGroup(),
                        worker.getKey()), Range.create("-", "+"), Limit.from(free));
                if (rows.size() == free) {
                    cleared = false; // more than we have room for: the next pass takes the rest
                }
                for (PendingMessage row : rows) {
                    List<StreamMessage<String, String>> claimed = provider.sync().xclaim(stream, me,
                            XClaimArgs.Builder.minIdleTime(1_000), row.getId());
                    if (claimed.isEmpty()) {
                        cleared = false;
                        continue;
                    }
                    StreamMessage<String, String> message = claimed.get(0);
                    if (message.getBody() == null) {
                        acks.ack(stream, row.getId());
                        continue;
                    }
                    log.info("took {} from dead worker {} (no heartbeat for {} ms)", row.getId(), worker.getKey(),
                            System.currentTimeMillis() - lastBeat);
                    dispatch(message, (int) row.getRedeliveryCount() + 1);
                }
            }
            if (cleared) {
                provider.sync().hdel(registry, worker.getKey());
            }
        }
    }

    /** Resets the idle time of this worker's entries that have run for half the threshold. */
    private void refreshLongRunning() {
        long threshold = TimeUnit.MILLISECONDS.toNanos(redis.idleTimeout().toMillis() / 2);
        long now = System.nanoTime();
        Map<String, List<String>> byStream = new LinkedHashMap<>();
        inFlight.forEach((id, f) -> {
            if (now - f.sinceNanos() > threshold) {
                byStream.computeIfAbsent(f.stream(), s -> new ArrayList<>()).add(id);
            }
        });
        byStream.forEach((stream, ids) -> provider.sync().xclaim(stream, me,
                XClaimArgs.Builder.minIdleTime(0).justid(), ids.toArray(String[]::new)));
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
        try {
            // A clean exit: whatever this worker abandoned is free to take at once.
            provider.sync().hset(provider.keys().workers(redis.consumerGroup()), settings.consumerId(), "0");
        } catch (RuntimeException e) {
            log.warn("could not mark {} as stopped: {}", settings.consumerId(), e.toString());
        }
    }
}
