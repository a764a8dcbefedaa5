package dev.backstage.runtime.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.spi.StartPosition;
import dev.backstage.runtime.spi.Subscription;
import dev.backstage.testsupport.SharedBroker;
import dev.backstage.testsupport.UsesSharedBrokers;
import io.lettuce.core.Consumer;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.XReadArgs.StreamOffset;
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
 * A topic message a consumer read and never settled (the process was killed while its handler ran or while its
 * retry waited in memory) is still pending in the group; it is delivered again — by the same consumer name at
 * its next start, or by another member of a shared group after the idle threshold — and the group's pending
 * list is empty once it ran. The "crashed" consumer here is a raw XREADGROUP that never acks: exactly what
 * Redis holds after a kill -9. In each connection mode (one node, the 6-node cluster, the Sentinel group).
 */
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
@UsesSharedBrokers({SharedBroker.REDIS_CLUSTER, SharedBroker.REDIS_SENTINEL})
@Tag("broker")
class RedisTopicRecoveryTest {
    private final RedisTestSupport redis;
    private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();

    RedisTopicRecoveryTest(RedisMode mode) {
        this.redis = new RedisTestSupport(mode);
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
        redis.close();
    }

    /** Publishes {@code ids} and reads them into the group as {@code consumer} without acking (a crash). */
    private String crashedReader(String group, String consumer, String... ids) {
        String stream = redis.keys().topic("rides");
        redis.redis()
                .xgroupCreate(
                        StreamOffset.from(stream, "0"), group, io.lettuce.core.XGroupCreateArgs.Builder.mkstream());
        for (String id : ids) {
            redis.redis()
                    .xadd(
                            stream,
                            Map.of(
                                    "payload",
                                    "{\"rideId\":\"" + id + "\"}",
                                    "publishedAt",
                                    Long.toString(System.currentTimeMillis())));
        }
        List<StreamMessage<String, String>> read = redis.redis()
                .xreadgroup(
                        Consumer.from(group, consumer),
                        XReadArgs.Builder.count(ids.length),
                        StreamOffset.lastConsumed(stream));
        assertEquals(ids.length, read.size(), "the crashed consumer read every message");
        assertEquals(ids.length, redis.redis().xpending(stream, group).getCount(), "pending before recovery");
        return stream;
    }

    private List<String> subscribe(String consumerId, Subscription subscription) {
        List<String> seen = new CopyOnWriteArrayList<>();
        Worker worker = Worker.builder()
                .provider(redis.provider())
                .consumerId(consumerId)
                .build();
        closeables.add(worker);
        worker.subscribe(subscription, Map.class, (ctx, p) -> seen.add(p.get("rideId") + "@" + ctx.deliveryCount()));
        worker.start();
        return seen;
    }

    @Test
    void givenEntriesLeftPendingUnderTheSameName_whenTheSubscriberRestarts_thenItRunsThemAndThePendingListEmpties() {
        String stream = crashedReader("grp:billing", "pod-0", "r1", "r2", "r3");

        List<String> seen =
                subscribe("pod-0", Subscription.group("rides", "billing").from(StartPosition.EARLIEST));

        await().atMost(Duration.ofSeconds(20))
                .until(() -> seen.size() >= 3
                        && redis.redis().xpending(stream, "grp:billing").getCount() == 0);
        assertEquals(
                List.of("r1@2", "r2@2", "r3@2"),
                seen.stream().sorted().toList(),
                "each ran again once, as its second delivery");
    }

    @Test
    void givenADeadMemberOfASharedGroup_whenItsEntriesGoIdle_thenAnotherMemberTakesThemWithTheirDeliveryCount() {
        String stream = crashedReader("grp:billing", "dead-pod", "r7", "r8");

        List<String> seen =
                subscribe("live-pod", Subscription.group("rides", "billing").from(StartPosition.EARLIEST));

        // Idle threshold 2 s in RedisTestSupport: the live member takes both and acks them after its handler ran.
        await().atMost(Duration.ofSeconds(20))
                .until(() -> seen.size() >= 2
                        && redis.redis().xpending(stream, "grp:billing").getCount() == 0);
        assertEquals(
                List.of("r7@2", "r8@2"),
                seen.stream().sorted().toList(),
                "each ran again once, as its second delivery");
    }
}
