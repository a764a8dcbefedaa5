package dev.backstage.operator.pool;

import static dev.backstage.operator.testing.BackstageFixtures.pool;
import static dev.backstage.operator.testing.BackstageFixtures.redisTopology;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.workload.WorkerContainer;
import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.TaskModule;
import dev.backstage.runtime.config.RuntimeConfigFiles;
import dev.backstage.runtime.main.WorkerFromConfig;
import dev.backstage.testsupport.UniqueNames;
import io.lettuce.core.RedisClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The operator ↔ runtime contract: the runtime.yaml the operator renders for a pool, read by the runtime's
 * own container code with the env the Deployment sets (the Secret's URL in {@code BACKSTAGE_PROVIDER_URL}),
 * starts a real worker on the local Redis that processes a job.
 */
@Tag("broker")
class RuntimeContractTest {
    private static final String REDIS = System.getenv().getOrDefault("BACKSTAGE_REDIS_URL", "redis://127.0.0.1:6379");

    @Test
    void givenTheConfigTheOperatorRenders_thenTheRuntimeStartsAWorkerThatProcessesAJob() {
        String prefix = UniqueNames.prefix("contract");
        BackstageTopology topology = redisTopology("ns", "t", "orders");
        topology.getSpec().setKeyPrefix(prefix);
        BackstageWorkerPool pool = pool("ns", "p", "t", "orders");
        String yaml = RuntimeConfigFiles.render(RuntimeConfigRenderer.render(pool, topology));

        Set<String> processed = ConcurrentHashMap.newKeySet();
        TaskModule module = binder -> binder.task("processOrder", Map.class, (ctx, order) -> {
            processed.add(String.valueOf(order.get("orderId")));
            return Next.done();
        });
        Map<String, String> podEnv =
                Map.of(WorkerContainer.PROVIDER_URL_ENV, REDIS, WorkerContainer.POD_NAME_ENV, "p-abc12");
        var built = new WorkerFromConfig(podEnv::get)
                .build(RuntimeConfigFiles.parse(yaml), List.of(module), new SimpleMeterRegistry());
        try {
            built.worker().start();
            built.worker().enqueue("processOrder", Map.of("orderId", "o-1"), EnqueueOptions.onQueue("orders"));
            await().atMost(Duration.ofSeconds(15)).until(() -> processed.contains("o-1"));
        } finally {
            built.worker().close();
        }
        RedisClient client = RedisClient.create(REDIS);
        try (var connection = client.connect()) {
            String stream = prefix + ":orders";
            assertEquals(
                    0,
                    connection
                            .sync()
                            .xpending(stream, topology.getSpec().getConsumerGroup())
                            .getCount(),
                    "acked in the group the topology names");
            connection
                    .sync()
                    .del(stream, prefix + ":workers:" + topology.getSpec().getConsumerGroup());
        } finally {
            client.shutdown();
        }
    }

    /**
     * {@code spec.maxRetries: 2} means what {@code kubectl explain} says: two retries after the first run, so a job
     * that always fails runs 3 times and then lies in the queue's dead-letter stream on the broker.
     */
    @Test
    void givenMaxRetriesTwo_whenAJobAlwaysFails_thenItRunsThreeTimesAndIsDeadLettered() {
        String prefix = UniqueNames.prefix("contract-retries");
        BackstageTopology topology = redisTopology("ns", "t", "orders");
        topology.getSpec().setKeyPrefix(prefix);
        BackstageWorkerPool pool = pool("ns", "p", "t", "orders");
        pool.getSpec().setMaxRetries(2);
        pool.getSpec().setRetryBackoff(fixedBackoff());
        String yaml = RuntimeConfigFiles.render(RuntimeConfigRenderer.render(pool, topology));

        AtomicInteger runs = new AtomicInteger();
        TaskModule module = binder -> binder.task("chargeCard", Map.class, (ctx, order) -> {
            runs.incrementAndGet();
            throw new IllegalStateException("card declined");
        });
        Map<String, String> podEnv =
                Map.of(WorkerContainer.PROVIDER_URL_ENV, REDIS, WorkerContainer.POD_NAME_ENV, "p-r1");
        var built = new WorkerFromConfig(podEnv::get)
                .build(RuntimeConfigFiles.parse(yaml), List.of(module), new SimpleMeterRegistry());
        RedisClient client = RedisClient.create(REDIS);
        try (var connection = client.connect()) {
            String deadLetters = prefix + ":orders:dead-letter";
            try {
                built.worker().start();
                built.worker().enqueue("chargeCard", Map.of("orderId", "o-2"), EnqueueOptions.onQueue("orders"));
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> connection.sync().xlen(deadLetters) == 1L);
            } finally {
                built.worker().close();
            }
            assertEquals(3, runs.get(), "the first run and maxRetries (2) retries");
            var keys = connection.sync().keys(prefix + ":*");
            if (!keys.isEmpty()) {
                connection.sync().del(keys.toArray(String[]::new));
            }
        } finally {
            client.shutdown();
        }
    }

    private static dev.backstage.operator.model.RetryBackoffSpec fixedBackoff() {
        var backoff = new dev.backstage.operator.model.RetryBackoffSpec();
        backoff.setType(dev.backstage.operator.model.BackoffType.FIXED);
        backoff.setDelay("100ms");
        return backoff;
    }
}
