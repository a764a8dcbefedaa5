package dev.backstage.runtime.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.spi.BacklogReport;
import dev.backstage.runtime.spi.BacklogUnavailableException;
import dev.backstage.runtime.spi.DeclaredObject;
import dev.backstage.runtime.spi.DeclaredObject.State;
import dev.backstage.runtime.spi.QueueBacklog;
import dev.backstage.runtime.spi.TopologyRequest;
import dev.backstage.runtime.spi.TopologyRequest.QueueSpec;
import dev.backstage.testsupport.SharedBroker;
import dev.backstage.testsupport.UsesSharedBrokers;
import io.lettuce.core.Consumer;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.XReadArgs.StreamOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The declarer and backlog probe the operator reuses, checked against Redis's own figures, in each connection mode
 * (in the cluster the queues' streams live on the shards their tags hash to; the report sums them).
 */
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
@UsesSharedBrokers({SharedBroker.REDIS_CLUSTER, SharedBroker.REDIS_SENTINEL})
@Tag("broker")
class RedisBacklogAndDeclarerTest {
    private final RedisTestSupport redis;
    private final RedisProvider provider;

    RedisBacklogAndDeclarerTest(RedisMode mode) {
        this.redis = new RedisTestSupport(mode);
        this.provider = redis.provider();
    }

    @AfterEach
    void tearDown() {
        provider.close();
        redis.close();
    }

    private TopologyRequest topology() {
        return new TopologyRequest(
                List.of(QueueSpec.named("orders"), QueueSpec.named("emails")),
                List.of("news"),
                true,
                "backstage-workers");
    }

    @Test
    void givenATopology_thenStreamsGroupsDeadLetterAndTopicStreamsAreCreatedOnceAndDriftIsSeen() {
        List<DeclaredObject> first = provider.declarer().declare(topology());
        assertTrue(first.stream().allMatch(o -> o.state() == State.CREATED), first.toString());
        assertEquals(7, first.size());
        assertEquals(0, redis.redis().xlen(redis.keys().deadLetter("orders")), "empty, no marker entry left");
        assertEquals(
                "backstage-workers",
                StreamInfo.groups(redis.redis().xinfoGroups(redis.keys().stream("orders")))
                        .get(0)
                        .get("name"));

        List<DeclaredObject> second = provider.declarer().declare(topology());
        assertTrue(second.stream().allMatch(o -> o.state() == State.EXISTED), second.toString());

        redis.redis().del(redis.keys().stream("emails"));
        List<DeclaredObject> drift = provider.declarer().inspect(topology());
        assertEquals(2, drift.stream().filter(o -> o.state() == State.MISSING).count(), drift.toString());
        provider.declarer().declare(topology());
        assertTrue(provider.declarer().inspect(topology()).stream().allMatch(o -> o.state() == State.EXISTED));

        provider.declarer().delete(topology());
        assertEquals(
                0,
                redis.redis().exists(redis.keys().stream("orders"), redis.keys().topic("news")));
    }

    @Test
    void givenAKnownBacklog_thenTheProbeMatchesXinfoGroupsAndXpending() {
        provider.declarer().declare(topology());
        String stream = redis.keys().stream("orders");
        for (int i = 0; i < 10; i++) {
            redis.redis().xadd(stream, "taskName", "t", "payload", "{}", "enqueuedAt", "1");
        }
        redis.redis()
                .xreadgroup(
                        Consumer.from("backstage-workers", "c1"),
                        XReadArgs.Builder.count(4),
                        StreamOffset.lastConsumed(stream));
        for (int i = 0; i < 3; i++) {
            redis.redis().xadd(redis.keys().deadLetter("orders"), "taskName", "t", "error", "x");
        }

        BacklogReport report = provider.backlogProbe().measure(List.of("orders", "emails"), "backstage-workers");
        QueueBacklog orders = report.queues().get(0);
        Map<String, Object> group =
                StreamInfo.groups(redis.redis().xinfoGroups(stream)).get(0);
        assertEquals(StreamInfo.asLong(group.get("lag")), orders.undelivered());
        assertEquals(6, orders.undelivered());
        assertEquals(redis.redis().xpending(stream, "backstage-workers").getCount(), orders.inFlight());
        assertEquals(4, orders.inFlight());
        assertEquals(3, orders.deadLetters());
        assertNotNull(orders.oldestAgeMs());
        assertEquals(13, report.outstanding() + report.deadLetters());
        QueueBacklog emails = report.queues().get(1);
        assertEquals(0, emails.outstanding());
        assertNull(orders.note());
    }

    @Test
    void givenAMissingGroup_thenTheWholeStreamCountsAndTheNoteSaysSo() {
        String stream = redis.keys().stream("orphan");
        redis.redis().xadd(stream, "taskName", "t", "payload", "{}", "enqueuedAt", "1");
        redis.redis().xadd(stream, "taskName", "t", "payload", "{}", "enqueuedAt", "1");
        QueueBacklog q = provider.backlogProbe()
                .measure(List.of("orphan"), "backstage-workers")
                .queues()
                .get(0);
        assertEquals(2, q.undelivered());
        assertTrue(q.note().contains("group backstage-workers missing"), q.note());
    }

    @Test
    void givenAnUnreachableRedis_thenTheProbeSaysSoInsteadOfReportingZero() {
        RedisProvider nowhere = RedisProvider.connect(redis.settings());
        nowhere.close();
        BacklogUnavailableException e = assertThrows(
                BacklogUnavailableException.class,
                () -> nowhere.backlogProbe().measure(List.of("orders"), "backstage-workers"));
        assertEquals("BrokerUnreachable", e.reason());
        assertTrue(
                e.getMessage().startsWith("redis at " + redis.settings().redactedUri() + " unreachable"),
                e.getMessage());
    }
}
