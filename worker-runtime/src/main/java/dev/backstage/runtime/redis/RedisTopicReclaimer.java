package dev.backstage.runtime.redis;

import dev.backstage.runtime.core.NamedThreads;
import io.lettuce.core.Consumer;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XClaimArgs;
import io.lettuce.core.XPendingArgs;
import io.lettuce.core.models.stream.PendingMessage;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.ObjIntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recovery for one topic subscription's group on Redis, the topic counterpart of {@link RedisReclaimer}: a topic
 * message stays pending in the group until the core settles it, so
 * <ul>
 *   <li>at start, the entries still pending under this consumer name (a crash or kill while they ran, or while a
 *       retry waited in memory) are delivered again at once — the group's own read position ({@code >}) would
 *       never return them;
 *   <li>every {@code reclaimInterval}, entries idle past {@code idleTimeout} under another consumer of the group (a
 *       member of a shared group that died) are taken, XCLAIM with that min-idle so two members never both take
 *       one;
 *   <li>the entries this consumer is running are kept fresh (XCLAIM JUSTID) once they have run for half the
 *       threshold, so a long handler is not taken from a live member.
 * </ul>
 * The Redis delivery counter travels with each entry, so the retry limit counts deliveries across members.
 */
final class RedisTopicReclaimer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RedisTopicReclaimer.class);
    private static final int BATCH = 100;

    private final RedisProvider provider;
    private final String stream;
    private final Consumer<String> me;
    private final ObjIntConsumer<StreamMessage<String, String>> dispatch;
    private final Map<String, Long> running = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer;

    /** {@code dispatch} hands a taken entry to the core with its delivery count (1 for a first delivery). */
    RedisTopicReclaimer(
            RedisProvider provider,
            String stream,
            Consumer<String> me,
            ObjIntConsumer<StreamMessage<String, String>> dispatch) {
        this.provider = provider;
        this.stream = stream;
        this.me = me;
        this.dispatch = dispatch;
        this.timer = Executors.newSingleThreadScheduledExecutor(
                new NamedThreads("backstage-redis-topic-reclaimer-" + me.getGroup(), true));
    }

    /** Delivers what a previous run of this consumer left pending, then starts the periodic pass. */
    void start() {
        try {
            takeOwnLeftovers();
        } catch (RuntimeException e) {
            log.warn(
                    "could not take the topic entries left pending under {} in {}: {}; another member takes them after"
                            + " {} ms",
                    me.getName(),
                    me.getGroup(),
                    e.toString(),
                    provider.settings().idleTimeout().toMillis());
        }
        long tick = provider.settings().reclaimInterval().toMillis();
        timer.scheduleWithFixedDelay(this::pass, tick, tick, TimeUnit.MILLISECONDS);
    }

    /** The core is running this entry. */
    void running(String id) {
        running.put(id, System.currentTimeMillis());
    }

    /** The core settled this entry (acked, dropped, retry scheduled or abandoned): no longer kept fresh. */
    void settled(String id) {
        running.remove(id);
    }

    private void takeOwnLeftovers() {
        String from = "-";
        int taken = 0;
        while (true) {
            List<PendingMessage> rows =
                    provider.sync().xpending(stream, me, Range.create(from, "+"), Limit.from(BATCH));
            for (PendingMessage row : rows) {
                taken += claim(row, 0) ? 1 : 0;
            }
            if (rows.size() < BATCH) {
                break;
            }
            from = "(" + rows.get(rows.size() - 1).getId();
        }
        if (taken > 0) {
            log.info(
                    "{} topic entries of {} were left pending under {} by its previous run; delivered again",
                    taken,
                    stream,
                    me.getName());
        }
    }

    private void pass() {
        try {
            refreshRunning();
            reclaimIdle();
        } catch (RuntimeException e) {
            log.warn("topic reclaim pass on {} failed: {}; the next pass retries", stream, e.toString());
        }
    }

    private void refreshRunning() {
        long threshold =
                System.currentTimeMillis() - provider.settings().idleTimeout().toMillis() / 2;
        String[] ids = running.entrySet().stream()
                .filter(e -> e.getValue() <= threshold)
                .map(Map.Entry::getKey)
                .toArray(String[]::new);
        if (ids.length > 0) {
            provider.sync().xclaim(stream, me, XClaimArgs.Builder.minIdleTime(0).justid(), ids);
            long now = System.currentTimeMillis();
            for (String id : ids) {
                running.computeIfPresent(id, (k, v) -> now);
            }
        }
    }

    private void reclaimIdle() {
        long idleMs = provider.settings().idleTimeout().toMillis();
        List<PendingMessage> rows = provider.sync()
                .xpending(
                        stream,
                        XPendingArgs.Builder.xpending(me.getGroup(), Range.create("-", "+"), Limit.from(BATCH))
                                .idle(idleMs));
        for (PendingMessage row : rows) {
            if (!row.getConsumer().equals(me.getName()) && claim(row, idleMs)) {
                log.info(
                        "took topic entry {} of {} from {} after {} ms idle",
                        row.getId(),
                        stream,
                        row.getConsumer(),
                        row.getMsSinceLastDelivery());
            }
        }
    }

    private boolean claim(PendingMessage row, long minIdleMs) {
        List<StreamMessage<String, String>> claimed =
                provider.sync().xclaim(stream, me, XClaimArgs.Builder.minIdleTime(minIdleMs), row.getId());
        if (claimed.isEmpty()) {
            return false; // taken by another member meanwhile
        }
        StreamMessage<String, String> message = claimed.get(0);
        if (message.getBody() == null) {
            provider.sync().xack(stream, me.getGroup(), row.getId()); // trimmed from the stream: nothing to deliver
            return false;
        }
        dispatch.accept(message, (int) Math.min(Integer.MAX_VALUE, row.getRedeliveryCount() + 1));
        return true;
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
