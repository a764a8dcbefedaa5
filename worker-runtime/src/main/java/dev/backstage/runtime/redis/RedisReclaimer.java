package dev.backstage.runtime.redis;

import dev.backstage.runtime.core.NamedThreads;
import io.lettuce.core.Consumer;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XClaimArgs;
import io.lettuce.core.XPendingArgs;
import io.lettuce.core.models.stream.PendingMessage;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recovery work for one {@link RedisConsumer}, every {@code reclaimInterval} (1 s by default):
 * <ul>
 *   <li>a heartbeat in {@code {p}:workers:{group}}, so the others know this worker is alive;
 *   <li>at start, the entries still pending under this worker's own consumer name (a restart that keeps the
 *       name — a container restart keeps {@code POD_NAME} — would otherwise wait for the idle threshold);
 *   <li>the pending entries of Java workers whose heartbeat stopped for {@code deadWorkerTimeout};
 *   <li>entries idle past {@code idleTimeout} from any consumer (seed workers write no heartbeat);
 *   <li>this worker's own long-running entries kept fresh (XCLAIM JUSTID) so nobody takes them while they run.
 * </ul>
 *
 * <p>Recovery does <em>not</em> wait for a free slot: under steady load the fetch loop fills every slot it
 * gets, so a takeover that needed one could wait indefinitely. It has an allowance of its own instead — at
 * most {@code capacity} recovered deliveries unsettled at a time — so the worker briefly holds up to twice
 * its allowance while it recovers a dead worker's entries, and never more.
 *
 * <p>Kept as one class: the heartbeat, the takeovers and the refresh of running entries run in one periodic pass and
 * share one allowance for recovered deliveries, which splitting them would split.
 */
final class RedisReclaimer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RedisReclaimer.class);
    /** Own-name leftovers loaded at start, at most this many (more are found by the idle reclaim). */
    private static final int OWN_LEFTOVERS_MAX = 100_000;

    private record Leftover(String stream, String id, long deliveries) {}

    private final RedisConsumer consumer;
    private final RedisSettler settler;
    private final RedisProvider provider;
    private final RedisSettings redis;
    private final String consumerId;
    private final Consumer<String> me;
    private final List<String> streams;
    private final int allowance;
    private final Set<String> recovered = ConcurrentHashMap.newKeySet();
    private final ArrayDeque<Leftover> ownLeftovers = new ArrayDeque<>();
    private final ScheduledExecutorService timer;
    private volatile String failure;

    RedisReclaimer(
            RedisConsumer consumer,
            RedisSettler settler,
            RedisProvider provider,
            String consumerId,
            List<String> streams,
            int allowance) {
        this.consumer = consumer;
        this.settler = settler;
        this.provider = provider;
        this.redis = provider.settings();
        this.consumerId = consumerId;
        this.me = Consumer.from(redis.consumerGroup(), consumerId);
        this.streams = List.copyOf(streams);
        this.allowance = Math.max(1, allowance);
        this.timer = Executors.newSingleThreadScheduledExecutor(
                new NamedThreads("backstage-redis-reclaimer-" + consumerId, true));
    }

    void start() {
        heartbeat();
        loadOwnLeftovers();
        long beat = Math.max(
                100,
                Math.min(
                        redis.reclaimInterval().toMillis(),
                        redis.deadWorkerTimeout().toMillis() / 3));
        timer.scheduleWithFixedDelay(() -> guarded("heartbeat", this::heartbeat), beat, beat, TimeUnit.MILLISECONDS);
        long tick = redis.reclaimInterval().toMillis();
        timer.scheduleWithFixedDelay(() -> guarded("reclaim pass", this::tick), 0, tick, TimeUnit.MILLISECONDS);
    }

    /** A recovered delivery was settled or abandoned: its place in the allowance is free again. */
    void settled(String id) {
        recovered.remove(id);
    }

    Optional<String> failure() {
        String f = failure;
        return f == null ? Optional.empty() : Optional.of(f);
    }

    private int room() {
        return allowance - recovered.size();
    }

    /** Runs one pass; an Error stops the reclaimer for good and is reported to the worker's health. */
    private void guarded(String what, Runnable pass) {
        try {
            pass.run();
        } catch (RuntimeException e) {
            log.warn(
                    "{} failed: {}; next in {} ms",
                    what,
                    e.toString(),
                    redis.reclaimInterval().toMillis());
        } catch (Error e) {
            failure = "redis reclaimer of " + consumerId + " stopped: " + e;
            log.error("{} failed; the reclaimer stops", what, e);
            throw e;
        }
    }

    private void tick() {
        if (!consumer.fetching()) {
            return;
        }
        refreshLongRunning();
        takeOwnLeftovers();
        reclaimFromDeadWorkers();
        for (String stream : streams) {
            if (room() <= 0 || !consumer.fetching()) {
                return;
            }
            reclaimIdle(stream);
        }
    }

    private void heartbeat() {
        provider.sync()
                .hset(
                        provider.keys().workers(redis.consumerGroup()),
                        consumerId,
                        Long.toString(System.currentTimeMillis()));
    }

    /** What the previous incarnation under this name left pending: nothing of ours runs yet, so all of it. */
    private void loadOwnLeftovers() {
        try {
            for (String stream : streams) {
                String from = "-";
                while (ownLeftovers.size() < OWN_LEFTOVERS_MAX) {
                    List<PendingMessage> rows =
                            provider.sync().xpending(stream, me, Range.create(from, "+"), Limit.from(1_000));
                    for (PendingMessage row : rows) {
                        ownLeftovers.add(new Leftover(stream, row.getId(), row.getRedeliveryCount()));
                    }
                    if (rows.size() < 1_000) {
                        break;
                    }
                    from = "(" + rows.get(rows.size() - 1).getId();
                }
            }
        } catch (RuntimeException e) {
            log.warn(
                    "could not list the entries left pending under {}: {}; the idle reclaim takes them after {} ms",
                    consumerId,
                    e.toString(),
                    redis.idleTimeout().toMillis());
        }
        if (!ownLeftovers.isEmpty()) {
            log.info(
                    "{} entries were left pending under this consumer name by its previous run; taking them now",
                    ownLeftovers.size());
        }
    }

    private void takeOwnLeftovers() {
        while (!ownLeftovers.isEmpty() && room() > 0 && consumer.fetching()) {
            Leftover leftover = ownLeftovers.peekFirst();
            if (!claim(leftover.stream(), leftover.id(), 0, leftover.deliveries() + 1, "left by the previous run")) {
                log.debug("{} left by the previous run is gone or taken", leftover.id());
            }
            ownLeftovers.pollFirst();
        }
    }

    /**
     * Takes every pending entry of Java workers whose heartbeat stopped, then forgets them. A min-idle of
     * one second keeps two rescuers from taking the same entry twice.
     */
    private void reclaimFromDeadWorkers() {
        String registry = provider.keys().workers(redis.consumerGroup());
        long deadline = System.currentTimeMillis() - redis.deadWorkerTimeout().toMillis();
        for (Map.Entry<String, String> worker :
                provider.sync().hgetall(registry).entrySet()) {
            Long lastBeat = JobEntryCodec.parseLong(worker.getValue());
            if (worker.getKey().equals(consumerId) || lastBeat == null || lastBeat > deadline) {
                continue;
            }
            boolean cleared = true;
            for (String stream : streams) {
                int room = room();
                if (!consumer.fetching() || room <= 0) {
                    return;
                }
                List<PendingMessage> rows = provider.sync()
                        .xpending(
                                stream,
                                Consumer.from(redis.consumerGroup(), worker.getKey()),
                                Range.create("-", "+"),
                                Limit.from(room));
                if (rows.size() == room) {
                    cleared = false; // more than we have room for: the next pass takes the rest
                }
                for (PendingMessage row : rows) {
                    if (!claim(
                            stream,
                            row.getId(),
                            1_000,
                            row.getRedeliveryCount() + 1,
                            "from dead worker " + worker.getKey() + " (no heartbeat for "
                                    + (System.currentTimeMillis() - lastBeat) + " ms)")) {
                        cleared = false;
                    }
                }
            }
            if (cleared) {
                provider.sync().hdel(registry, worker.getKey());
            }
        }
    }

    /** Takes entries idle past the threshold from other (crashed or stuck) consumers. */
    private void reclaimIdle(String stream) {
        long idleMs = redis.idleTimeout().toMillis();
        int room = room();
        List<PendingMessage> rows = provider.sync()
                .xpending(
                        stream,
                        XPendingArgs.Builder.xpending(
                                        redis.consumerGroup(), Range.create("-", "+"), Limit.from(Math.max(10, room)))
                                .idle(idleMs));
        for (PendingMessage row : rows) {
            if (room() <= 0 || !consumer.fetching()) {
                return;
            }
            if (settler.holds(row.getId())) {
                continue;
            }
            claim(
                    stream,
                    row.getId(),
                    idleMs,
                    row.getRedeliveryCount() + 1,
                    "from " + row.getConsumer() + " after " + row.getMsSinceLastDelivery() + " ms idle");
        }
    }

    /** XCLAIM one entry and hand it to the core as a recovered delivery; false when it was not ours to take. */
    private boolean claim(String stream, String id, long minIdleMs, long deliveryCount, String why) {
        List<StreamMessage<String, String>> claimed =
                provider.sync().xclaim(stream, me, XClaimArgs.Builder.minIdleTime(minIdleMs), id);
        if (claimed.isEmpty()) {
            return false;
        }
        StreamMessage<String, String> message = claimed.get(0);
        if (message.getBody() == null) {
            settler.dropDeleted(stream, id); // deleted from the stream: drop it from the pending list
            return true;
        }
        log.info("took {} on {} {} (delivery {})", id, stream, why, deliveryCount);
        recovered.add(id);
        consumer.dispatch(message, (int) deliveryCount);
        return true;
    }

    /** Resets the idle time of this worker's entries that have run for half the threshold. */
    private void refreshLongRunning() {
        Map<String, List<String>> byStream = new LinkedHashMap<>();
        settler.longRunning(redis.idleTimeout().toMillis() / 2)
                .forEach((id, stream) ->
                        byStream.computeIfAbsent(stream, s -> new ArrayList<>()).add(id));
        byStream.forEach((stream, ids) -> provider.sync()
                .xclaim(stream, me, XClaimArgs.Builder.minIdleTime(0).justid(), ids.toArray(String[]::new)));
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            // A clean exit: whatever this worker abandoned is free to take at once.
            provider.sync().hset(provider.keys().workers(redis.consumerGroup()), consumerId, "0");
        } catch (RuntimeException e) {
            log.warn("could not mark {} as stopped: {}", consumerId, e.toString());
        }
    }
}
