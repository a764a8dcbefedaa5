package dev.backstage.runtime.redis;

import dev.backstage.runtime.core.NamedThreads;
import dev.backstage.runtime.spi.ConsumerSettings;
import dev.backstage.runtime.spi.DeliverySink;
import dev.backstage.runtime.spi.JobConsumer;
import io.lettuce.core.Consumer;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs.StreamOffset;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker's consumer on a set of streams (docs/wire-format.md): the fetch loop, on its own connection, reads
 * (XREADGROUP) at most the free in-flight allowance and hands each read to the core in one hand-off. Settling
 * what it handed out (ack, retry, dead-letter, abandon) is {@link RedisSettler}'s; recovery (heartbeat, own
 * leftovers, dead-worker takeover, idle reclaim) is {@link RedisReclaimer}'s.
 */
final class RedisConsumer implements JobConsumer {
    private static final Logger log = LoggerFactory.getLogger(RedisConsumer.class);
    private static final Duration BATCH_WAIT = Duration.ofMillis(5);

    private final RedisProvider provider;
    private final RedisSettings redis;
    private final ConsumerSettings settings;
    private final DeliverySink sink;
    private final Consumer<String> me;
    private final Map<String, String> queueByStream = new LinkedHashMap<>();
    private final RedisSettler settler;
    private final RedisReclaimer reclaimer;
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
        this.settler =
                new RedisSettler(provider, settings.consumerId(), this::fetching, this::dispatch, this::released);
        this.reclaimer = new RedisReclaimer(
                this,
                settler,
                provider,
                settings.consumerId(),
                List.copyOf(queueByStream.keySet()),
                Math.max(settings.prefetch(), settings.flow().capacity()));
        this.fetcher =
                new NamedThreads("backstage-redis-fetch-" + settings.consumerId(), true).newThread(this::fetchLoop);
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
                provider.sync()
                        .xgroupCreate(
                                StreamOffset.from(stream, "0"),
                                redis.consumerGroup(),
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

    /** Settles what this consumer hands out. */
    RedisSettler settler() {
        return settler;
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
        RedisLink connection = null;
        long backoffMs = 100;
        List<StreamOffset<String>[]> bySlot = SlotReads.offsetsBySlot(queueByStream.keySet());
        SlotReads reads = new SlotReads(bySlot, redis.blockTimeout());
        int streams = queueByStream.size();
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
                int perStream = Math.max(1, (wanted + streams - 1) / streams);
                List<StreamMessage<String, String>> messages = reads.read(connection, me, perStream);
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
            settler.skip(stream, message.getId()); // docs/wire-format.md: never written by anyone
            return null;
        }
        settler.track(stream, message.getId());
        return new RedisDelivery(
                settler,
                stream,
                queueByStream.get(stream),
                message.getId(),
                body == null ? Map.of() : body,
                deliveryCount);
    }

    /** The settler no longer holds {@code id}: if it was recovered, the reclaimer's allowance has room again. */
    private void released(String id) {
        reclaimer.settled(id);
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
        settler.close();
        reclaimer.close();
    }
}
