package dev.backstage.runtime.redis;

import dev.backstage.runtime.core.NamedThreads;
import dev.backstage.runtime.spi.StartPosition;
import dev.backstage.runtime.spi.Subscription;
import dev.backstage.runtime.spi.TopicConsumer;
import dev.backstage.runtime.spi.TopicDelivery;
import dev.backstage.runtime.spi.TopicSink;
import dev.backstage.runtime.spi.TopicsCapability;
import io.lettuce.core.Consumer;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAddArgs;
import io.lettuce.core.XClaimArgs;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs.StreamOffset;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Topics on Redis Streams, the provider-version format (WIRE.md §2): {@code XADD {p}:topic:{t} MAXLEN ~
 * 10000}; fan-out subscribers use group {@code sub:{consumerId}}, shared ones {@code grp:{name}}, created
 * at {@code $} (latest) or {@code 0} (earliest). Mechanics only (the core decides): a retry leaves the entry
 * pending in this subscription's group and claims it back after the back-off (XCLAIM with min-idle = delay), so
 * no other group sees it again; a drop acks it. What a crash leaves pending is delivered again by
 * {@link RedisTopicReclaimer} (own entries at start, a dead member's after the idle threshold).
 */
final class RedisTopics implements TopicsCapability {
    private static final Logger log = LoggerFactory.getLogger(RedisTopics.class);

    private final RedisProvider provider;

    RedisTopics(RedisProvider provider) {
        this.provider = provider;
    }

    @Override
    public String backend() {
        return "redis";
    }

    @Override
    public String publish(String topic, String payloadJson) {
        return provider.sync().xadd(provider.keys().topic(topic), XAddArgs.Builder.maxlen(10_000).approximateTrimming(),
                "payload", payloadJson, "publishedAt", Long.toString(System.currentTimeMillis()));
    }

    @Override
    public TopicConsumer subscribe(Subscription subscription, String consumerId, TopicSink sink) {
        String stream = provider.keys().topic(subscription.topic());
        String group = subscription.isFanOut() ? "sub:" + consumerId : "grp:" + subscription.group();
        try {
            provider.sync().xgroupCreate(StreamOffset.from(stream,
                    subscription.start() == StartPosition.EARLIEST ? "0" : "$"), group, XGroupCreateArgs.Builder.mkstream());
        } catch (RedisCommandExecutionException e) {
            if (!String.valueOf(e.getMessage()).startsWith("BUSYGROUP")) {
                throw e;
            }
        }
        Loop loop = new Loop(subscription.topic(), stream, Consumer.from(group, consumerId), sink);
        loop.start();
        return loop;
    }

    private final class Loop implements TopicConsumer {
        private final String topic;
        private final String stream;
        private final Consumer<String> me;
        private final TopicSink sink;
        private final Thread reader;
        private final ScheduledExecutorService retries;
        private final RedisTopicReclaimer reclaimer;
        private volatile boolean running = true;
        private volatile String failure;

        Loop(String topic, String stream, Consumer<String> me, TopicSink sink) {
            this.topic = topic;
            this.stream = stream;
            this.me = me;
            this.sink = sink;
            this.reader = new NamedThreads("backstage-redis-topic-" + topic, true).newThread(this::read);
            this.retries = Executors.newSingleThreadScheduledExecutor(
                    new NamedThreads("backstage-redis-topic-retry-" + topic, true));
            this.reclaimer = new RedisTopicReclaimer(provider, stream, me, this::dispatch);
        }

        void start() {
            reclaimer.start();
            reader.start();
        }

        private void dispatch(StreamMessage<String, String> message, int deliveryCount) {
            reclaimer.running(message.getId());
            sink.accept(new Message(this, message, deliveryCount));
        }

        private void read() {
            try {
                readUntilClosed();
            } catch (Throwable e) {
                failure = "redis topic loop of '" + topic + "' stopped: " + e;
                log.error("reading topic {} failed; the subscription stops", topic, e);
                throw e;
            }
        }

        @Override
        public java.util.Optional<String> failure() {
            return java.util.Optional.ofNullable(failure);
        }

        private void readUntilClosed() {
            try (StatefulRedisConnection<String, String> connection = provider.dedicatedConnection()) {
                while (running) {
                    try {
                        List<StreamMessage<String, String>> messages = connection.sync().xreadgroup(me,
                                XReadArgs.Builder.count(10).block(provider.settings().blockTimeout()),
                                StreamOffset.lastConsumed(stream));
                        messages.forEach(m -> dispatch(m, 1));
                    } catch (RuntimeException e) {
                        if (running) {
                            log.warn("reading topic {} failed: {}; retrying in 1 s", topic, e.toString());
                            sleepQuietly();
                        }
                    }
                }
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

        void retryLater(Message message, long delayMs) {
            retries.schedule(() -> {
                try {
                    List<StreamMessage<String, String>> claimed = provider.sync().xclaim(stream, me,
                            XClaimArgs.Builder.minIdleTime(delayMs), message.id());
                    if (!claimed.isEmpty() && claimed.get(0).getBody() != null) {
                        dispatch(claimed.get(0), message.deliveryCount() + 1);
                    }
                } catch (RuntimeException e) {
                    log.warn("retrying topic message {} failed: {}", message.id(), e.toString());
                }
            }, delayMs, TimeUnit.MILLISECONDS);
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
    }

    private final class Message implements TopicDelivery {
        private final Loop loop;
        private final String id;
        private final Map<String, String> body;
        private final int deliveryCount;

        Message(Loop loop, StreamMessage<String, String> message, int deliveryCount) {
            this.loop = loop;
            this.id = message.getId();
            this.body = message.getBody();
            this.deliveryCount = deliveryCount;
        }

        String id() {
            return id;
        }

        @Override
        public String topic() {
            return loop.topic;
        }

        @Override
        public String messageId() {
            return id;
        }

        @Override
        public String payloadJson() {
            return body == null ? null : body.get("payload");
        }

        @Override
        public long publishedAtMs() {
            Long at = body == null ? null : JobEntryCodec.parseLong(body.get("publishedAt"));
            return at == null ? 0 : at;
        }

        @Override
        public int deliveryCount() {
            return deliveryCount;
        }

        @Override
        public CompletionStage<Void> ack() {
            loop.reclaimer.settled(id);
            return provider.async().xack(loop.stream, loop.me.getGroup(), id).thenApply(n -> null);
        }

        @Override
        public java.util.Optional<String> malformedReason() {
            return body == null || body.get("payload") == null
                    ? java.util.Optional.of("topic entry " + id + " has no payload field")
                    : java.util.Optional.empty();
        }

        @Override
        public CompletionStage<Void> retry(java.time.Duration delay, String error) {
            loop.reclaimer.settled(id);
            loop.retryLater(this, Math.max(0, delay.toMillis()));
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<Void> drop(String reason) {
            return ack();
        }

        @Override
        public void abandon() {
            // Stays pending in this subscription's group: the next start of this consumer delivers it again, or
            // another member takes it after the idle threshold (RedisTopicReclaimer).
            loop.reclaimer.settled(id);
        }
    }
}
