package dev.backstage.runtime.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.EnqueueResult;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.spi.Backoff;
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
        worker = Worker.builder().provider(provider).queues("default").concurrency(2).maxDeliveries(1)
                .backoff(Backoff.fixed(Duration.ZERO)).shutdownGrace(Duration.ofSeconds(2)).build();
        worker.register("charge", Map.class, (ctx, p) -> {
            jobIds.add(ctx.jobId());
            if (!fixed.get()) {
                throw new IllegalStateException("card service down");
            }
            return Next.done();
        });
        worker.start();
        EnqueueResult result = worker.enqueue("charge", Map.of("order", "o-1"), EnqueueOptions.onQueue("default"));
        await().atMost(Duration.ofSeconds(20)).until(() -> provider.deadLetters().count("default") == 1);

        assertEquals(1, provider.deadLetters().redrive("default", 10)); // fails again: dead-lettered a second time
        // maxDeliveries 1: each round runs twice (deliveries 1 and 2) before it is dead-lettered.
        await().atMost(Duration.ofSeconds(20)).until(() -> jobIds.size() == 4
                && provider.deadLetters().count("default") == 1);
        fixed.set(true);
        assertEquals(1, provider.deadLetters().redrive("default", 10));
        await().atMost(Duration.ofSeconds(20)).until(() -> jobIds.size() == 5);

        assertEquals(java.util.Collections.nCopies(5, result.id()), jobIds);
        assertEquals(0, provider.deadLetters().count("default"));
    }
}
