package dev.backstage.runtime.rabbitmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.Channel;
import dev.backstage.runtime.api.CapabilityMissingException;
import dev.backstage.runtime.core.Scheduler;
import dev.backstage.runtime.redis.RedisDedupe;
import dev.backstage.runtime.spi.schedule.Schedule;
import dev.backstage.testsupport.SimulatedClock;
import dev.backstage.testsupport.UniqueNames;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Schedules on RabbitMQ, which has no dedupe of its own: refused without one, exactly once with Redis dedupe. */
@Tag("broker")
class RabbitMqSchedulerTest {
    private static final String REDIS_URL =
            System.getenv().getOrDefault("BACKSTAGE_REDIS_URL", "redis://127.0.0.1:6379");

    private final RabbitMqTestBroker broker = new RabbitMqTestBroker();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final ExecutorService threads = Executors.newFixedThreadPool(2);

    @AfterEach
    void tearDown() throws Exception {
        threads.shutdownNow();
        for (AutoCloseable c : closeables) {
            c.close();
        }
        broker.close();
    }

    @Test
    void givenASchedulerWithoutDedupe_whenBuilt_thenItFailsWithOneLineThatSaysWhatToSupply() {
        RabbitMqProvider provider = broker.provider("scheduler");
        CapabilityMissingException e = assertThrows(
                CapabilityMissingException.class,
                () -> Scheduler.builder()
                        .provider(provider)
                        .schedule(Schedule.of("s", "* * * * *", "t"))
                        .build());
        System.out.println("without dedupe: " + e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
        assertEquals(
                "provider 'rabbitmq' does not supply the 'dedupe' capability: a Scheduler claims every tick with"
                        + " a dedupe key so that any number of schedulers enqueue it once; supply one, e.g."
                        + " Scheduler.builder().dedupe(RedisDedupe.connect(\"redis://host:6379\"))",
                e.getMessage());
    }

    @Test
    void givenTwoSchedulersWithSuppliedRedisDedupe_thenEachTickIsEnqueuedOnceOnRabbitMq() throws Exception {
        String queue = broker.queue("reports");
        Channel channel = broker.channel();
        channel.queueDeclare(queue, true, false, false, null);
        channel.close();
        SimulatedClock clock = new SimulatedClock(Instant.parse("2026-01-01T00:00:00.250Z"));
        // A schedule name unique to this test: the claim keys live in the shared Redis under the default prefix.
        Schedule every = Schedule.of(UniqueNames.prefix("rmq-cron"), "*/20 * * * * *", "report.build")
                .onQueue("reports");
        List<Scheduler> schedulers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            RedisDedupe dedupe = RedisDedupe.connect(REDIS_URL);
            closeables.add(dedupe);
            Scheduler scheduler = Scheduler.builder()
                    .provider(broker.provider("scheduler-" + i, Map.of()))
                    .dedupe(dedupe)
                    .clock(clock)
                    .schedule(every)
                    .build();
            closeables.add(scheduler);
            schedulers.add(scheduler);
        }
        Instant end = clock.instant().plus(Duration.ofMinutes(10));
        while (clock.instant().isBefore(end)) {
            clock.advance(Duration.ofSeconds(3));
            for (Future<?> turn : threads.invokeAll(
                    schedulers.stream().map(s -> (Callable<Object>) s::runDue).toList())) {
                turn.get();
            }
        }
        long expected = 30; // every 20 s for 10 minutes: 00:00:20 … 00:10:00
        long enqueued = broker.ready(queue);
        System.out.printf(
                "two schedulers on RabbitMQ + Redis dedupe, 10 simulated minutes of '*/20 * * * * *':"
                        + " ticks expected %d, jobs enqueued %d (messages ready on %s)%n",
                expected, enqueued, queue);
        assertEquals(expected, enqueued);
        List<String> bodies = broker.drain(queue);
        assertTrue(
                bodies.stream()
                        .allMatch(b -> b.contains("\"payload\":{\"taskName\":\"report.build\",\"args\":[]}")
                                || b.contains("\\\"taskName\\\":\\\"report.build\\\"")),
                bodies.get(0));
    }
}
