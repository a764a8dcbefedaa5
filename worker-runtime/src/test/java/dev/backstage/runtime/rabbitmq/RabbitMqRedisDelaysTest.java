package dev.backstage.runtime.rabbitmq;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.EnqueueResult;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.TaskOptions;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.redis.RedisDelays;
import dev.backstage.runtime.redis.RedisTestSupport;
import dev.backstage.runtime.spi.Backoff;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * RabbitMQ jobs with delays supplied by Redis ({@code delayedExchange=supplied}): the Redis store keeps
 * delayed jobs and its promoter publishes due ones into RabbitMQ through {@code JobsCapability.publish}.
 */
@Tag("broker")
class RabbitMqRedisDelaysTest {
    private final RabbitMqTestBroker broker = new RabbitMqTestBroker();
    private final RedisTestSupport redis = new RedisTestSupport();

    @AfterEach
    void cleanUp() throws Exception {
        broker.close();
        redis.close();
    }

    private Worker.Builder workerWithRedisDelays() {
        return broker.worker("w", Map.of(RabbitMqSettings.OPTION_DELAYED_EXCHANGE, "supplied"))
                .delays(RedisDelays.connect(redis.settings()));
    }

    @Test
    void givenRedisDelays_whenAJobIsScheduled_thenRedisHoldsItAndItRunsFromRabbitMqWithinOneSecondOfDue()
            throws Exception {
        List<Long> ranAt = new CopyOnWriteArrayList<>();
        Worker worker = broker.own(workerWithRedisDelays().build());
        worker.register("later", String.class, (ctx, s) -> {
            ranAt.add(System.currentTimeMillis());
            assertEquals("default", ctx.queue());
            return Next.done();
        });
        worker.start();
        assertTrue(worker.capabilityReport().contains("redis (supplied)"), worker.capabilityReport());

        EnqueueResult result = worker.schedule("later", "x", Duration.ofMillis(1500));
        assertEquals(1, redis.redis().zcard(redis.prefix() + ":scheduled"), "waiting in Redis, not in RabbitMQ");
        assertEquals(0, broker.ready(broker.queue("default")));

        await().atMost(Duration.ofSeconds(20)).until(() -> ranAt.size() == 1);
        long lateness = ranAt.get(0) - result.runAt().toEpochMilli();
        System.out.printf("redis-delayed job arrived %d ms after due%n", lateness);
        assertTrue(lateness >= 0, "never early: " + lateness + " ms");
        assertEquals(0, redis.redis().zcard(redis.prefix() + ":scheduled"));
    }

    @Test
    void givenRedisDelays_whenAJobFailsWithABackoff_thenTheRetryCopyWaitsInRedisAndComesBackCountedWithItsId()
            throws Exception {
        List<Integer> counts = new CopyOnWriteArrayList<>();
        List<String> ids = new CopyOnWriteArrayList<>();
        List<Long> runs = new CopyOnWriteArrayList<>();
        Worker worker = broker.own(workerWithRedisDelays().build());
        worker.register(
                "retry.me",
                String.class,
                TaskOptions.defaults().withBackoff(Backoff.fixed(Duration.ofMillis(1500))),
                (ctx, s) -> {
                    counts.add(ctx.deliveryCount());
                    ids.add(ctx.jobId());
                    runs.add(System.currentTimeMillis());
                    if (ctx.deliveryCount() == 1) {
                        throw new IllegalStateException("first run fails");
                    }
                    return Next.done();
                });
        worker.start();
        String jobId = worker.enqueue("retry.me", "x").id();

        await("the retry copy is stored in Redis")
                .atMost(Duration.ofSeconds(60))
                .until(() -> redis.redis().zcard(redis.prefix() + ":scheduled") == 1);
        await().atMost(Duration.ofSeconds(20)).until(() -> counts.size() == 2);
        assertEquals(List.of(1, 2), counts);
        assertEquals(List.of(jobId, jobId), ids);
        assertTrue(runs.get(1) - runs.get(0) >= 1500, "waited the back-off");
        await().atMost(Duration.ofSeconds(60)).until(() -> worker.inFlight() == 0);
        worker.close();
        assertEquals(0, broker.ready(broker.queue("default")), "the original was acked after Redis stored the copy");
    }
}
