package dev.backstage.runtime.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.spi.Backoff;
import dev.backstage.runtime.spi.Subscription;
import dev.backstage.runtime.spi.TopologyRequest;
import dev.backstage.testsupport.SharedBroker;
import dev.backstage.testsupport.UsesSharedBrokers;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A topic message past the retry policy on Redis is moved, with the reason, to the failing group's own dead-letter
 * stream {@code {p}:topic:{t}:{group}:dead-letter} and acked in the same script; another group is not touched.
 * Every check reads Redis itself (XRANGE of the streams, XPENDING of the groups).
 */
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
@UsesSharedBrokers({SharedBroker.REDIS_CLUSTER, SharedBroker.REDIS_SENTINEL})
@Tag("broker")
class RedisTopicDeadLetterTest {
    record Ride(String id) {}

    private final RedisTestSupport redis;

    RedisTopicDeadLetterTest(RedisMode mode) {
        this.redis = new RedisTestSupport(mode);
    }

    private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
        redis.close(); // deletes every key under the test's prefix, the dead-letter streams among them
    }

    @Test
    void givenTwoGroupsAndOneAlwaysFailing_thenOnlyTheFailingGroupDeadLettersOneCopyWithTheOriginalFieldsAndError() {
        List<Integer> aRuns = new CopyOnWriteArrayList<>();
        List<String> bRuns = new CopyOnWriteArrayList<>();
        Worker w = Worker.builder()
                .provider(redis.provider())
                .consumerId("dl-pod")
                .maxDeliveries(1)
                .backoff(Backoff.fixed(Duration.ofMillis(100)))
                .build();
        closeables.add(w);
        w.subscribe(Subscription.group("rides", "a"), Ride.class, (ctx, ride) -> {
            aRuns.add(ctx.deliveryCount());
            throw new IllegalStateException("bad ride " + ride.id());
        });
        w.subscribe(Subscription.group("rides", "b"), Ride.class, (ctx, ride) -> bRuns.add(ctx.messageId()));
        w.start();
        String id = w.publish("rides", new Ride("r9"));

        RedisKeys keys = redis.keys();
        String stream = keys.topic("rides");
        String deadA = keys.topicDeadLetter("rides", "grp:a");
        assertEquals(
                redis.mode() == RedisMode.CLUSTER
                        ? "{" + redis.prefix() + ":topic:rides}:grp:a:dead-letter"
                        : redis.prefix() + ":topic:rides:grp:a:dead-letter",
                deadA);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> redis.redis().xlen(deadA) >= 1
                        && redis.redis().xpending(stream, "grp:a").getCount() == 0
                        && redis.redis().xpending(stream, "grp:b").getCount() == 0);

        List<StreamMessage<String, String>> dead = redis.redis().xrange(deadA, Range.create("-", "+"));
        assertEquals(1, dead.size(), "exactly one dead-letter copy: " + dead);
        Map<String, String> original =
                redis.redis().xrange(stream, Range.create(id, id)).get(0).getBody();
        Map<String, String> copy = dead.get(0).getBody();
        assertEquals(original.get("payload"), copy.get("payload"), "the original payload, unchanged");
        assertEquals(original.get("publishedAt"), copy.get("publishedAt"));
        assertEquals(id, copy.get("originalId"));
        assertEquals("grp:a", copy.get("group"));
        assertEquals("rides", copy.get("topic"));
        assertEquals("2", copy.get("deliveryCount"));
        assertTrue(
                copy.get("error").contains("bad ride r9") && copy.get("error").contains("failed 2 times"),
                copy.get("error"));
        assertTrue(Long.parseLong(copy.get("deadLetteredAt")) > 0);
        assertEquals(List.of(1, 2), aRuns, "maxDeliveries 1, the jobs' rule: deliveries 1 and 2, then dead-lettered");
        assertEquals(List.of(id), bRuns, "group b ran the message once");
        assertEquals(0, redis.redis().exists(keys.topicDeadLetter("rides", "grp:b")), "no dead letter for group b");
        assertEquals(1, redis.redis().xlen(stream), "the message stays in the topic stream for the other groups");
    }

    @Test
    void givenATopicWithDeadLetters_whenTheTopologyIsDeleted_thenItsGroupsDeadLetterStreamsGoButAnotherTopicsStay() {
        RedisKeys keys = redis.keys();
        List<String> ours = List.of(keys.topicDeadLetter("rides", "grp:a"), keys.topicDeadLetter("rides", "sub:pod-1"));
        String other = keys.topicDeadLetter("rides-eu", "grp:a");
        for (String key : List.of(ours.get(0), ours.get(1), other)) {
            redis.redis().xadd(key, Map.of("payload", "{}", "error", "e"));
        }
        RedisProvider provider = redis.provider();
        closeables.add(provider);

        provider.declarer().delete(new TopologyRequest(List.of(), List.of("rides"), false, "workers"));

        assertEquals(0, redis.redis().exists(ours.toArray(String[]::new)), "the topic's dead-letter streams are gone");
        assertEquals(1, redis.redis().exists(other), "another topic's dead letters are kept");
    }
}
