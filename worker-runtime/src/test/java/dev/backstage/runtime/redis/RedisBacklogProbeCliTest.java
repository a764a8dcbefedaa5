package dev.backstage.runtime.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.OutgoingJob;
import dev.backstage.runtime.spi.QueueBacklog;
import dev.backstage.runtime.spi.TopologyRequest;
import dev.backstage.runtime.spi.TopologyRequest.QueueSpec;
import io.lettuce.core.Consumer;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.XReadArgs.StreamOffset;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The backlog probe's figures, including the cumulative counters the autoscaler's drain target uses, against
 * what the real {@code redis-cli} reports for the same stream.
 */
@Tag("broker")
class RedisBacklogProbeCliTest {
    private static final String GROUP = "backstage-workers";

    private final RedisTestSupport redis = new RedisTestSupport();
    private final RedisProvider provider = redis.provider();
    private final RedisCli cli = new RedisCli(RedisTestSupport.URL);

    @AfterEach
    void tearDown() {
        provider.close();
        redis.close();
    }

    private QueueBacklog measure(String queue) {
        return provider.backlogProbe().measure(List.of(queue), GROUP).queues().get(0);
    }

    @Test
    void givenAKnownBacklog_thenUndeliveredInFlightDeadLettersAndCountersMatchRedisCli() {
        provider.declarer().declare(new TopologyRequest(List.of(QueueSpec.named("orders")), List.of(), true, GROUP));
        String stream = redis.prefix() + ":orders";
        for (int i = 0; i < 10; i++) {
            provider.jobs().publish(OutgoingJob.fresh("orders", "t", "{\"n\":" + i + "}", JobMeta.NONE));
        }
        List<StreamMessage<String, String>> read = redis.redis()
                .xreadgroup(Consumer.from(GROUP, "c1"), XReadArgs.Builder.count(4), StreamOffset.lastConsumed(stream));
        assertEquals(4, read.size());
        redis.redis().xack(stream, GROUP, read.get(0).getId());
        for (int i = 0; i < 2; i++) {
            redis.redis().xadd(stream + ":dead-letter", "taskName", "t", "error", "boom");
        }

        QueueBacklog probe = measure("orders");
        Map<String, String> group = cli.xinfoGroup(stream, GROUP);
        Map<String, String> info = cli.xinfoStream(stream);
        long pending = cli.xpendingCount(stream, GROUP);

        assertEquals(Long.parseLong(group.get("lag")), probe.undelivered(), "lag of XINFO GROUPS");
        assertEquals(6, probe.undelivered());
        assertEquals(pending, probe.inFlight(), "XPENDING count");
        assertEquals(Long.parseLong(group.get("pending")), probe.inFlight(), "pending of XINFO GROUPS");
        assertEquals(3, probe.inFlight());
        assertEquals(cli.xlen(stream + ":dead-letter"), probe.deadLetters(), "XLEN of the dead-letter stream");
        assertEquals(2, probe.deadLetters());
        assertEquals(Long.parseLong(info.get("entries-added")), probe.enqueuedTotal(), "entries-added of XINFO STREAM");
        assertEquals(10L, probe.enqueuedTotal());
        assertEquals(
                Long.parseLong(group.get("entries-read")) - pending, probe.completedTotal(), "entries-read - pending");
        assertEquals(1L, probe.completedTotal());
        assertTrue(probe.oldestAgeMs() != null && probe.oldestAgeMs() >= 0, "oldest age from the oldest pending id");
        assertNull(probe.note());
    }

    @Test
    void givenAWorkerSettlesJobs_thenTheCompletedCounterFollowsItsAcks() {
        provider.declarer().declare(new TopologyRequest(List.of(QueueSpec.named("mails")), List.of(), true, GROUP));
        for (int i = 0; i < 5; i++) {
            provider.jobs().publish(OutgoingJob.fresh("mails", "send", "\"m" + i + "\"", JobMeta.NONE));
        }
        QueueBacklog before = measure("mails");
        assertEquals(5L, before.enqueuedTotal());
        assertEquals(
                "",
                cli.xinfoGroup(redis.prefix() + ":mails", GROUP).get("entries-read"),
                "a group that has not read yet: redis-cli prints nil entries-read as an empty line");
        assertEquals(0L, before.completedTotal(), "entries-added - lag - pending when entries-read is nil");

        try (Worker worker = Worker.builder()
                .provider(redis.provider())
                .queues("mails")
                .concurrency(2)
                .shutdownGrace(Duration.ofSeconds(5))
                .build()) {
            worker.register("send", String.class, (ctx, mail) -> Next.done());
            worker.start();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                QueueBacklog now = measure("mails");
                assertEquals(0, now.outstanding(), "all settled");
                assertEquals(5L, now.completedTotal());
            });
        }
        String stream = redis.prefix() + ":mails";
        Map<String, String> group = cli.xinfoGroup(stream, GROUP);
        assertEquals(
                Long.parseLong(group.get("entries-read")) - cli.xpendingCount(stream, GROUP),
                measure("mails").completedTotal());
        assertEquals(
                Long.parseLong(cli.xinfoStream(stream).get("entries-added")),
                measure("mails").enqueuedTotal());
    }

    @Test
    void givenAStreamThatDoesNotExistYet_thenNothingWasEnqueuedAndCompletionsAreUnknown() {
        QueueBacklog probe = measure("later");
        assertEquals(0L, probe.enqueuedTotal());
        assertNull(probe.completedTotal());
        assertEquals(0, probe.outstanding());
    }
}
