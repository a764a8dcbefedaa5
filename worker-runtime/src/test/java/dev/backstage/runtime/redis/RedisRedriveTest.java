package dev.backstage.runtime.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.EnqueueResult;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.spi.Backoff;
import dev.backstage.testsupport.SharedBroker;
import dev.backstage.testsupport.UsesSharedBrokers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The job id — the documented idempotency key — is the same before and after a dead-letter redrive, in each
 * connection mode (the redrive script moves the entry between two keys of one slot).
 */
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
@UsesSharedBrokers({SharedBroker.REDIS_CLUSTER, SharedBroker.REDIS_SENTINEL})
@Tag("broker")
class RedisRedriveTest {
    private final RedisTestSupport redis;

    RedisRedriveTest(RedisMode mode) {
        this.redis = new RedisTestSupport(mode);
    }

    private Worker worker;

    @AfterEach
    void tearDown() {
        if (worker != null) {
            worker.close();
        }
        redis.close();
    }

    @Test
    void givenADeadLetteredJob_whenRedrivenTwice_thenItRunsAgainUnderItsOriginalJobId() {
        List<String> jobIds = new CopyOnWriteArrayList<>();
        AtomicBoolean fixed = new AtomicBoolean();
        RedisProvider provider = redis.provider();
        worker = Worker.builder()
                .provider(provider)
                .queues("default")
                .concurrency(2)
                .maxDeliveries(1)
                .backoff(Backoff.fixed(Duration.ZERO))
                .shutdownGrace(Duration.ofSeconds(2))
                .build();
        worker.register("charge", Map.class, (ctx, p) -> {
            jobIds.add(ctx.jobId());
            if (!fixed.get()) {
                throw new IllegalStateException("card service down");
            }
            return Next.done();
        });
        worker.start();
        EnqueueResult result = worker.enqueue("charge", Map.of("order", "o-1"), EnqueueOptions.onQueue("default"));
        await().atMost(Duration.ofSeconds(20))
                .until(() -> provider.deadLetters().count("default") == 1);

        assertEquals(1, provider.deadLetters().redrive("default", 10)); // fails again: dead-lettered a second time
        // maxDeliveries 1: each round runs twice (deliveries 1 and 2) before it is dead-lettered.
        await().atMost(Duration.ofSeconds(20))
                .until(() -> jobIds.size() == 4 && provider.deadLetters().count("default") == 1);
        fixed.set(true);
        assertEquals(1, provider.deadLetters().redrive("default", 10));
        await().atMost(Duration.ofSeconds(20)).until(() -> jobIds.size() == 5);

        assertEquals(java.util.Collections.nCopies(5, result.id()), jobIds);
        assertEquals(0, provider.deadLetters().count("default"));
    }

    @Test
    void givenADeadLetterReadByTwoRedrives_whenBothRunTheMove_thenTheJobIsQueuedOnce() {
        RedisProvider provider = redis.provider();
        String dlq = provider.keys().deadLetter("default");
        String stream = provider.keys().stream("default");
        String id = provider.sync().xadd(dlq, Map.of("taskName", "charge", "payload", "{}", "originalId", "0-1"));
        String[] keys = {dlq, stream};
        String[] args = {id, "taskName", "charge", "payload", "{}"};

        Object first = provider.sync().eval(RedisScripts.REDRIVE, io.lettuce.core.ScriptOutputType.VALUE, keys, args);
        Object second = provider.sync().eval(RedisScripts.REDRIVE, io.lettuce.core.ScriptOutputType.VALUE, keys, args);

        assertEquals(true, first != null, "the first move queues the job");
        assertEquals(null, second, "the second finds the dead letter gone and queues nothing");
        assertEquals(1L, provider.sync().xlen(stream));
        assertEquals(0L, provider.sync().xlen(dlq));
    }

    @Test
    void givenThreeDeadLetters_whenPagedThenOneRedrivenAndOneDeleted_thenEachChangeTouchesOnlyItsEntry() {
        RedisProvider provider = redis.provider();
        String dlq = provider.keys().deadLetter("default");
        List<String> ids = new java.util.ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            ids.add(provider.sync()
                    .xadd(
                            dlq,
                            Map.of(
                                    "taskName",
                                    "charge",
                                    "payload",
                                    "{\"n\":" + i + "}",
                                    "error",
                                    "boom",
                                    "deliveryCount",
                                    "5",
                                    "originalId",
                                    "0-" + i)));
        }
        var dead = provider.deadLetters();
        assertEquals(true, dead.supportsSingleEntries());
        assertEquals(
                List.of(ids.get(0), ids.get(1)),
                dead.page("default", null, 2).stream()
                        .map(dev.backstage.runtime.spi.DeadLetterEntry::id)
                        .toList());
        assertEquals(
                List.of(ids.get(2)),
                dead.page("default", ids.get(1), 2).stream()
                        .map(dev.backstage.runtime.spi.DeadLetterEntry::id)
                        .toList());

        assertEquals(true, dead.redriveOne("default", ids.get(1)));
        assertEquals(false, dead.redriveOne("default", ids.get(1)), "gone from the dead letters");
        var requeued =
                provider.sync().xrange(provider.keys().stream("default"), io.lettuce.core.Range.create("-", "+"));
        assertEquals(1, requeued.size());
        assertEquals("{\"n\":2}", requeued.get(0).getBody().get("payload"));
        assertEquals("0-2", requeued.get(0).getBody().get(RedisDelivery.JOB_ID_FIELD), "the job keeps its id");

        assertEquals(true, dead.delete("default", ids.get(0)));
        assertEquals(false, dead.delete("default", ids.get(0)));
        assertEquals(
                List.of(ids.get(2)),
                dead.list("default", 10).stream()
                        .map(dev.backstage.runtime.spi.DeadLetterEntry::id)
                        .toList());
    }
}
