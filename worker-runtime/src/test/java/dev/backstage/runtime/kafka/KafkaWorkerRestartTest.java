package dev.backstage.runtime.kafka;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.backstage.runtime.recovery.CrashRecoveryRun;
import dev.backstage.runtime.redis.RedisTestSupport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 29 item 7: a worker process with 8 jobs inside its handlers is SIGKILLed and started again at once, as a
 * container restart does (same pod name, so the same consumer id), on 3,000 jobs over 4 partitions. Every job
 * must run; the seconds from the kill until the new process completes its first job and until every interrupted
 * job ran again are printed (a figure, not an assertion). The second case is a restart that does not keep its
 * identity (no {@code POD_NAME}: the runtime's default id has the process id in it), which has to wait for the
 * group to evict the dead member after the session timeout.
 */
@Tag("broker")
@Tag("slow")
class KafkaWorkerRestartTest {
    private static final int JOBS = 3_000;
    private static final int PARTITIONS = 4;
    private static final int CONCURRENCY = 8;
    private static final int KILL_AFTER = 300;

    private final KafkaTestSupport kafka = new KafkaTestSupport();
    private final RedisTestSupport redis = new RedisTestSupport();
    private CrashRecoveryRun run;

    @AfterEach
    void tearDown() throws Exception {
        if (run != null) {
            run.close();
        }
        kafka.close();
        redis.close();
    }

    @ParameterizedTest(name = "consumer id {0}")
    @ValueSource(strings = {"worker-0", "-"})
    void givenAWorkerKilledWithJobsInItsHandlers_whenRestartedAtOnce_thenEveryJobRuns(String consumerId)
            throws Exception {
        String topic = kafka.topic("default");
        kafka.createTopic(topic, PARTITIONS);
        for (int n = 0; n < JOBS; n++) {
            kafka.producer()
                    .send(new ProducerRecord<>(topic, n % PARTITIONS, null, job(n).getBytes(StandardCharsets.UTF_8)));
        }
        kafka.producer().flush();
        String scenario =
                consumerId.equals("-") ? "kafka restart, new process identity" : "kafka restart, same pod name";
        run = new CrashRecoveryRun(
                "kafka-restart",
                id -> List.of(
                        "kafka",
                        kafka.bootstrap,
                        kafka.prefix,
                        kafka.group,
                        id,
                        "default",
                        String.valueOf(CONCURRENCY),
                        "40",
                        RedisTestSupport.URL,
                        redis.prefix()),
                JOBS);
        // Held: what it started and did not finish (the test's own account of its handlers).
        CrashRecoveryRun.Killed killed =
                run.killWhileHolding(consumerId, KILL_AFTER, CrashRecoveryRun.Child::unfinished);
        long killedAt = killed.atNanos();
        Set<Integer> held = killed.held();

        CrashRecoveryRun.Child second = run.start(consumerId);
        CrashRecoveryRun.Figures figures =
                run.measure(scenario, held, killedAt, second, Duration.ofSeconds(120), Duration.ofSeconds(180));
        System.out.printf(
                "%s: the new process started its worker %.1f s after the kill, completed its first job after"
                        + " %.1f s, and the %d interrupted jobs all ran again after %.1f s%n",
                scenario,
                (second.readyAt() - killedAt) / 1e9,
                (second.firstDoneAt() - killedAt) / 1e9,
                held.size(),
                figures.secondsToRecover());
        for (int p = 0; p < PARTITIONS; p++) {
            int partition = p;
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> kafka.committed(kafka.group, topic, partition) == kafka.endOffset(topic, partition));
        }
        assertEquals(0, figures.lost(), "jobs lost: " + figures);
    }

    private static String job(int n) {
        return "{\"taskName\":\"work\",\"payload\":{\"n\":" + n + "},\"enqueuedAt\":1718900000000,\"meta\":{},"
                + "\"deliveryCount\":1,\"jobId\":\"job-" + n + "\"}";
    }
}
