package dev.backstage.runtime.rabbitmq;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.CapabilityMissingException;
import dev.backstage.runtime.api.EnqueueResult;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.TaskOptions;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.spi.Backoff;
import dev.backstage.runtime.spi.ConfigurationException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Delayed jobs on RabbitMQ. The test broker has no delayed-message plugin, so the TTL ladder runs. */
@Tag("broker")
class RabbitMqDelaysTest {
    private RabbitMqTestBroker broker;

    @AfterEach
    void cleanUp() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    @ParameterizedTest
    @EnumSource(RabbitMqShape.class)
    void givenABrokerWithoutThePlugin_whenAuto_thenDetectionPicksTheFallbackAndTheProviderStaysHealthy(
            RabbitMqShape shape) {
        broker = new RabbitMqTestBroker(shape);
        RabbitMqProvider provider = broker.provider("p");
        assertEquals(DelayMode.FALLBACK, provider.delayMode());
        assertEquals(FallbackDelays.BACKEND, provider.delays().orElseThrow().backend());
        assertTrue(provider.health().up(), "the probe's connection-level 503 must not touch the provider's connection");
    }

    @ParameterizedTest
    @EnumSource(RabbitMqShape.class)
    void givenABrokerWithoutThePlugin_whenPluginIsRequired_thenStartupFailsSayingWhatToDo(RabbitMqShape shape) {
        broker = new RabbitMqTestBroker(shape);
        ConfigurationException error = assertThrows(
                ConfigurationException.class,
                () -> broker.provider("p", Map.of(RabbitMqSettings.OPTION_DELAYED_EXCHANGE, "plugin")));
        assertTrue(error.getMessage().contains("rabbitmq_delayed_message_exchange"), error.getMessage());
        assertTrue(error.getMessage().contains("fallback"), error.getMessage());
    }

    @ParameterizedTest
    @EnumSource(RabbitMqShape.class)
    void givenDelaysOfSeveralLevels_thenNoneArrivesEarly_andShortOnesDoNotWaitBehindLongOnes(RabbitMqShape shape)
            throws Exception {
        broker = new RabbitMqTestBroker(shape);
        Map<String, Long> arrivedAt = new ConcurrentHashMap<>();
        List<String> order = new CopyOnWriteArrayList<>();
        Worker worker = broker.own(broker.worker("w").build());
        worker.register("timed", String.class, (ctx, label) -> {
            arrivedAt.put(label, System.currentTimeMillis());
            order.add(label);
            return Next.done();
        });
        worker.start();
        // Longest first: if a level queue blocked behind a longer wait, the short ones would arrive late.
        // 4000 ms = 40 units (levels 5, 3); 2300 ms = 23 units (levels 4, 2, 1, 0); 700 ms = 7 (levels 2, 1, 0).
        Map<String, EnqueueResult> scheduled = Map.of(
                "4000ms", worker.schedule("timed", "4000ms", Duration.ofMillis(4000)),
                "2300ms", worker.schedule("timed", "2300ms", Duration.ofMillis(2300)),
                "700ms", worker.schedule("timed", "700ms", Duration.ofMillis(700)));

        await("all three delivered").atMost(Duration.ofSeconds(30)).until(() -> arrivedAt.size() == 3);
        for (var entry : scheduled.entrySet()) {
            long due = entry.getValue().runAt().toEpochMilli();
            long lateness = arrivedAt.get(entry.getKey()) - due;
            System.out.printf("delay %s: arrived %d ms after due%n", entry.getKey(), lateness);
            assertTrue(lateness >= 0, entry.getKey() + " arrived " + -lateness + " ms early");
        }
        assertEquals(List.of("700ms", "2300ms", "4000ms"), order);
    }

    @ParameterizedTest
    @EnumSource(RabbitMqShape.class)
    void givenAFailureWithABackoff_thenTheRetryCopyWaitsInTheLadderForTheBackoff(RabbitMqShape shape) throws Exception {
        broker = new RabbitMqTestBroker(shape);
        List<Long> runs = new CopyOnWriteArrayList<>();
        Worker worker = broker.own(broker.worker("w").build());
        worker.register(
                "slow.retry",
                String.class,
                TaskOptions.defaults().withBackoff(Backoff.fixed(Duration.ofMillis(1200))),
                (ctx, s) -> {
                    runs.add(System.currentTimeMillis());
                    if (ctx.deliveryCount() == 1) {
                        throw new IllegalStateException("first run fails");
                    }
                    return Next.done();
                });
        worker.start();
        worker.enqueue("slow.retry", "x");

        await().atMost(Duration.ofSeconds(30)).until(() -> runs.size() == 2);
        long gap = runs.get(1) - runs.get(0);
        assertTrue(gap >= 1200, "the retry waited its back-off: " + gap + " ms");
        System.out.printf("retry after a 1200 ms back-off: ran again %d ms after the failure%n", gap);
    }

    @ParameterizedTest
    @EnumSource(RabbitMqShape.class)
    void givenDelayedExchangeSupplied_whenTheWorkerHasNoDelaysCapability_thenItRefusesToStart(RabbitMqShape shape) {
        broker = new RabbitMqTestBroker(shape);
        Worker worker = broker.own(broker.worker("w", Map.of(RabbitMqSettings.OPTION_DELAYED_EXCHANGE, "supplied"))
                .build());
        worker.register("t", String.class, (ctx, s) -> Next.done());
        CapabilityMissingException error = assertThrows(CapabilityMissingException.class, worker::start);
        assertTrue(error.getMessage().toLowerCase().contains("delays"), error.getMessage());
    }
}
