package dev.backstage.runtime.redis;

import dev.backstage.runtime.core.NamedThreads;
import dev.backstage.runtime.spi.TopicConsumer;
import dev.backstage.runtime.spi.TopicDelivery;
import dev.backstage.runtime.spi.TopicSink;
import io.lettuce.core.Consumer;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XClaimArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.XReadArgs.StreamOffset;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One consumer of one stream in a group of its own (a fan-out topic subscription, a shared topic group, a worker's
 * broadcast group): {@code XREADGROUP COUNT 10 BLOCK} on a dedicated connection, each entry handed to the core as
 * a {@link TopicDelivery}. Mechanics only (the core decides): ack = {@code XACK}; a retry leaves the entry pending
 * in this group and claims it back after the back-off ({@code XCLAIM} with min-idle = delay), so no other group
 * sees it again; a drop acks it, after copying it to the group's dead-letter stream when there is one (one script:
 * the copy and the XACK happen together or not at all); an abandoned entry stays pending. Crash recovery is the
 * {@link RedisTopicReclaimer}'s: what a previous run under this consumer name left pending is delivered again at
 * start, a dead member's entries after the idle threshold, and running entries are kept fresh.
 *
 * <p>Kept as one class: the read loop and the ack, retry claim and drop act on the pending entries of one consumer on
 * one connection; the recovery of other consumers' entries is already apart.
 */
final class RedisGroupReader implements TopicConsumer {
    private static final Logger log = LoggerFactory.getLogger(RedisGroupReader.class);

    /**
     * How an entry of this stream reads as a message.
     *
     * @param topicOf         the delivery's {@code topic()} from the entry's fields (a broadcast: its task name)
     * @param timeField       the field holding the send time in ms
     * @param malformed       why an entry cannot be handed to a handler, or empty
     * @param missingPayload  the payload JSON of an entry without one, or null to treat it as malformed
     */
    record Shape(
            Function<Map<String, String>, String> topicOf,
            String timeField,
            Function<Map<String, String>, Optional<String>> malformed,
            String missingPayload) {}

    /** Runs on the reader's thread: before the first read, then every {@code interval} (e.g. group cleanup). */
    record Housekeeping(Duration interval, Runnable task) {}

    private final RedisProvider provider;
    private final String label;
    private final String stream;
    private final Consumer<String> me;
    private final TopicSink sink;
    private final Shape shape;
    private final Runnable onNoGroup;
    private final Housekeeping housekeeping;
    private final String deadLetterStream;
    private final RedisTopicReclaimer reclaimer;
    private final Thread reader;
    private final ScheduledExecutorService retries;
    private volatile boolean running = true;
    private volatile String failure;

    /**
     * @param onNoGroup        recreates the group when a read answers NOGROUP (someone destroyed it), or null to
     *                         only log and retry
     * @param deadLetterStream where a drop keeps a copy with the reason ({@link RedisKeys#topicDeadLetter}), or
     *                         null when a drop only acks
     */
    RedisGroupReader(
            RedisProvider provider,
            String label,
            String stream,
            Consumer<String> me,
            TopicSink sink,
            Shape shape,
            Runnable onNoGroup,
            Housekeeping housekeeping,
            String deadLetterStream) {
        this.provider = provider;
        this.label = label;
        this.stream = stream;
        this.me = me;
        this.sink = sink;
        this.shape = shape;
        this.onNoGroup = onNoGroup;
        this.housekeeping = housekeeping;
        this.deadLetterStream = deadLetterStream;
        this.reader = new NamedThreads("backstage-redis-" + label, true).newThread(this::read);
        this.retries = Executors.newSingleThreadScheduledExecutor(
                new NamedThreads("backstage-redis-" + label + "-retry", true));
        this.reclaimer = new RedisTopicReclaimer(provider, stream, me, this::dispatch);
    }

    /** Delivers what a previous run under this consumer name left pending, then reads new entries. */
    RedisGroupReader start() {
        reclaimer.start();
        reader.start();
        return this;
    }

    private void dispatch(StreamMessage<String, String> message, int deliveryCount) {
        reclaimer.running(message.getId());
        sink.accept(new Message(message, deliveryCount));
    }

    private void read() {
        try {
            readUntilClosed();
        } catch (Throwable e) {
            failure = "redis reader of " + label + " stopped: " + e;
            log.error("reading {} failed; it stops", label, e);
            throw e;
        }
    }

    @Override
    public Optional<String> failure() {
        return Optional.ofNullable(failure);
    }

    private void readUntilClosed() {
        long nextHousekeeping = System.nanoTime();
        try (RedisLink connection = provider.dedicatedConnection()) {
            while (running) {
                if (housekeeping != null && System.nanoTime() - nextHousekeeping >= 0) {
                    nextHousekeeping =
                            System.nanoTime() + housekeeping.interval().toNanos();
                    runQuietly(housekeeping.task(), "housekeeping");
                }
                try {
                    List<StreamMessage<String, String>> messages = connection
                            .sync()
                            .xreadgroup(
                                    me,
                                    XReadArgs.Builder.count(10)
                                            .block(provider.settings().blockTimeout()),
                                    StreamOffset.lastConsumed(stream));
                    messages.forEach(m -> dispatch(m, 1));
                } catch (RuntimeException e) {
                    if (!running) {
                        break;
                    }
                    if (onNoGroup != null && String.valueOf(e.getMessage()).startsWith("NOGROUP")) {
                        log.warn("{}: group {} is gone from {}; recreating it", label, me.getGroup(), stream);
                        runQuietly(onNoGroup, "recreating the group");
                        continue;
                    }
                    log.warn("reading {} failed: {}; retrying in 1 s", label, e.toString());
                    sleepQuietly();
                }
            }
        }
    }

    private void runQuietly(Runnable task, String what) {
        try {
            task.run();
        } catch (RuntimeException e) {
            log.warn("{}: {} failed: {}", label, what, e.toString());
        }
    }

    private void sleepQuietly() {
        try {
            Thread.sleep(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    private void retryLater(Message message, long delayMs) {
        retries.schedule(
                () -> {
                    try {
                        List<StreamMessage<String, String>> claimed =
                                provider.sync().xclaim(stream, me, XClaimArgs.Builder.minIdleTime(delayMs), message.id);
                        if (!claimed.isEmpty() && claimed.get(0).getBody() != null) {
                            dispatch(claimed.get(0), message.deliveryCount + 1);
                        }
                    } catch (RuntimeException e) {
                        log.warn("retrying {} message {} failed: {}", label, message.id, e.toString());
                    }
                },
                delayMs,
                TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        running = false;
        reclaimer.close();
        retries.shutdownNow();
        try {
            reader.join(provider.settings().blockTimeout().toMillis() + 2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private final class Message implements TopicDelivery {
        private final String id;
        private final Map<String, String> body;
        private final int deliveryCount;

        Message(StreamMessage<String, String> message, int deliveryCount) {
            this.id = message.getId();
            this.body = message.getBody();
            this.deliveryCount = deliveryCount;
        }

        @Override
        public String topic() {
            return body == null ? null : shape.topicOf().apply(body);
        }

        @Override
        public String messageId() {
            return id;
        }

        @Override
        public String payloadJson() {
            String payload = body == null ? null : body.get("payload");
            return payload == null ? shape.missingPayload() : payload;
        }

        @Override
        public long publishedAtMs() {
            Long at = body == null ? null : JobEntryCodec.parseLong(body.get(shape.timeField()));
            return at == null ? 0 : at;
        }

        @Override
        public int deliveryCount() {
            return deliveryCount;
        }

        @Override
        public Optional<String> malformedReason() {
            if (body == null) {
                return Optional.of("entry " + id + " has no fields");
            }
            if (body.get("payload") == null && shape.missingPayload() == null) {
                return Optional.of("entry " + id + " has no payload field");
            }
            return shape.malformed().apply(body);
        }

        @Override
        public CompletionStage<Void> ack() {
            reclaimer.settled(id);
            return provider.async().xack(stream, me.getGroup(), id).thenApply(n -> null);
        }

        @Override
        public CompletionStage<Void> retry(Duration delay, String error) {
            reclaimer.settled(id);
            retryLater(this, Math.max(0, delay.toMillis()));
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<Void> drop(String reason) {
            if (deadLetterStream == null) {
                return ack();
            }
            reclaimer.settled(id);
            // The job dead-letter's fields (docs/wire-format.md) on the entry's own fields, plus the topic and the
            // group.
            List<String> args = new ArrayList<>(List.of(me.getGroup(), id, "0")); // never XDEL: other groups read it
            Map<String, String> fields = new LinkedHashMap<>(body == null ? Map.of() : body);
            fields.put("topic", String.valueOf(topic()));
            fields.put("group", me.getGroup());
            fields.put("originalId", id);
            fields.put("deliveryCount", Integer.toString(deliveryCount));
            fields.put("deadLetteredAt", Long.toString(System.currentTimeMillis()));
            fields.put("error", reason == null ? "" : reason);
            fields.forEach((k, v) -> {
                args.add(k);
                args.add(v);
            });
            return provider.async()
                    .<String>eval(
                            RedisScripts.DEAD_LETTER,
                            ScriptOutputType.VALUE,
                            new String[] {deadLetterStream, stream},
                            args.toArray(String[]::new))
                    .thenApply(dlId -> null);
        }

        @Override
        public Optional<String> deadLetterDestination() {
            return Optional.ofNullable(deadLetterStream);
        }

        @Override
        public void abandon() {
            // Stays pending in this group: the next start of this consumer delivers it again, or another member
            // takes it after the idle threshold (RedisTopicReclaimer).
            reclaimer.settled(id);
        }
    }
}
