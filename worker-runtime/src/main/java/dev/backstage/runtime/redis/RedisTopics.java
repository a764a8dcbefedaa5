package dev.backstage.runtime.redis;

import dev.backstage.runtime.spi.StartPosition;
import dev.backstage.runtime.spi.Subscription;
import dev.backstage.runtime.spi.TopicConsumer;
import dev.backstage.runtime.spi.TopicSink;
import dev.backstage.runtime.spi.TopicsCapability;
import io.lettuce.core.Consumer;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.XAddArgs;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs.StreamOffset;
import java.util.Optional;

/**
 * Topics on Redis Streams, the provider-version format (docs/wire-format.md): {@code XADD {p}:topic:{t} MAXLEN ~
 * 10000}; fan-out subscribers use group {@code sub:{consumerId}}, shared ones {@code grp:{name}}, created
 * at {@code $} (latest) or {@code 0} (earliest). The reading and settlement mechanics are
 * {@link RedisGroupReader}'s: a retry leaves the entry pending in this subscription's group and claims it back
 * after the back-off, so no other group sees it again; a drop moves it, with the reason, to the group's own
 * dead-letter stream {@code {p}:topic:{t}:{group}:dead-letter} ({@link RedisKeys#topicDeadLetter}: an extension,
 * the seed SDKs have no topic dead letters) and acks it in one script; what a crash leaves pending is delivered
 * again by {@link RedisTopicReclaimer} (own entries at start, a dead member's after the idle threshold).
 */
final class RedisTopics implements TopicsCapability {
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
        return provider.sync()
                .xadd(
                        provider.keys().topic(topic),
                        XAddArgs.Builder.maxlen(10_000).approximateTrimming(),
                        "payload",
                        payloadJson,
                        "publishedAt",
                        Long.toString(System.currentTimeMillis()));
    }

    @Override
    public TopicConsumer subscribe(Subscription subscription, String consumerId, TopicSink sink) {
        String stream = provider.keys().topic(subscription.topic());
        String group = subscription.isFanOut() ? "sub:" + consumerId : "grp:" + subscription.group();
        try {
            provider.sync()
                    .xgroupCreate(
                            StreamOffset.from(stream, subscription.start() == StartPosition.EARLIEST ? "0" : "$"),
                            group,
                            XGroupCreateArgs.Builder.mkstream());
        } catch (RedisCommandExecutionException e) {
            if (!String.valueOf(e.getMessage()).startsWith("BUSYGROUP")) {
                throw e;
            }
        }
        RedisGroupReader.Shape shape =
                new RedisGroupReader.Shape(body -> subscription.topic(), "publishedAt", body -> Optional.empty(), null);
        return new RedisGroupReader(
                        provider,
                        "topic-" + subscription.topic(),
                        stream,
                        Consumer.from(group, consumerId),
                        sink,
                        shape,
                        null,
                        null,
                        provider.keys().topicDeadLetter(subscription.topic(), group))
                .start();
    }
}
