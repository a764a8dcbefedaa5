package dev.backstage.runtime.rabbitmq;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.recovery.CrashRecoveryRun;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.OutgoingJob;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A worker JVM holding unacked deliveries is SIGKILLed while the queue still has a long backlog, then
 * restarted; the broker requeues what the dead connection held, and every held job must run again (waited for
 * with a 60 s deadline that only stops a test where they never do), none lost. How long that took is printed, not
 * asserted: it is the restarted JVM's start-up on a machine that may be loaded (10.0 s once beside stress-ng, 1.2 s
 * on a quieter one); the recovery target is a benchmark's figure. Held = the jobs the killed worker started and
 * never finished (it acks only after a job finished).
 */
@Tag("broker")
class RabbitMqCrashRecoveryTest {
    private static final int JOBS = 5_000;
    private static final int KILL_AFTER = 200;

    private final RabbitMqTestBroker broker = new RabbitMqTestBroker();
    private CrashRecoveryRun run;

    @AfterEach
    void tearDown() throws Exception {
        if (run != null) {
            run.close();
        }
        broker.close();
    }

    @Test
    void givenAWorkerKilledWithABacklog_whenItRestarts_thenTheBrokerRequeuesWhatItHeldAndItRunsAgainWithinSeconds()
            throws Exception {
        try (RabbitMqProvider producer = RabbitMqProvider.connect(broker.settings("producer", Map.of()))) {
            for (int n = 0; n < JOBS; n++) {
                producer.jobs().publish(OutgoingJob.fresh("default", "work", "{\"n\":" + n + "}", JobMeta.NONE));
            }
        }
        run = new CrashRecoveryRun(
                "rabbitmq",
                consumer -> List.of(
                        "rabbitmq",
                        RabbitMqTestBroker.URL,
                        broker.prefix,
                        "backstage-workers",
                        consumer,
                        "default",
                        "4",
                        "25"),
                JOBS);
        // What it started and did not finish was unacked when it died (acks follow the handler).
        CrashRecoveryRun.Killed killed =
                run.killWhileHolding("worker-a", KILL_AFTER, CrashRecoveryRun.Child::unfinished);
        long killedAt = killed.atNanos();
        Set<Integer> held = killed.held();

        CrashRecoveryRun.Child second = run.start("worker-a");
        CrashRecoveryRun.Figures figures =
                run.measure("rabbitmq", held, killedAt, second, Duration.ofSeconds(60), Duration.ofSeconds(120));
        await().atMost(Duration.ofSeconds(30)).until(() -> broker.ready(broker.queue("default")) == 0);
        System.out.println(figures);
        assertTrue(figures.secondsToRecover() >= 0, "every held job ran again: " + figures);
        assertEquals(0, figures.lost(), "jobs lost: " + figures);
    }
}
