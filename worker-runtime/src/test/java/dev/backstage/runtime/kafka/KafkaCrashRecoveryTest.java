package dev.backstage.runtime.kafka;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.recovery.CrashRecoveryRun;
import dev.backstage.runtime.redis.RedisTestSupport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A worker JVM holding unsettled records is SIGKILLed while its partition still has a long backlog, then
 * restarted under the same consumer id (a container restart keeps the pod name): static membership lets it
 * take its partition back at once instead of after the dead member's session timeout. Every record it held
 * must run again within the recovery target (15 s; asserted with a generous 30 s), none lost. Held = the
 * offsets the group's committed position (and its settled-beyond metadata) does not cover, up to the last one
 * the killed worker started.
 */
@Tag("broker")
class KafkaCrashRecoveryTest {
    private static final int JOBS = 5_000;
    private static final int KILL_AFTER = 200;
    private static final Duration RECOVERY_BOUND = Duration.ofSeconds(30);

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

    @Test
    void
            givenAWorkerKilledWithABacklog_whenItRestartsUnderTheSamePodName_thenStaticMembershipHandsItsPartitionBackAtOnce()
                    throws Exception {
        String topic = kafka.topic("default");
        kafka.createTopic(topic, 1);
        for (int n = 0; n < JOBS; n++) { // one partition, in order: offset n holds job n
            kafka.producer().send(new ProducerRecord<>(topic, 0, null, job(n).getBytes(StandardCharsets.UTF_8)));
        }
        kafka.producer().flush();
        run = new CrashRecoveryRun(
                "kafka",
                consumer -> List.of(
                        "kafka",
                        kafka.bootstrap,
                        kafka.prefix,
                        kafka.group,
                        consumer,
                        "default",
                        "4",
                        "25",
                        RedisTestSupport.URL,
                        redis.prefix()),
                JOBS);
        CrashRecoveryRun.Killed killed =
                run.killWhileHolding("worker-a", KILL_AFTER, victim -> unsettled(topic, victim.started()));
        long killedAt = killed.atNanos();
        Set<Integer> held = killed.held();

        CrashRecoveryRun.Child second = run.start("worker-a");
        CrashRecoveryRun.Figures figures = run.measure(
                "kafka, same pod name", held, killedAt, second, Duration.ofSeconds(120), Duration.ofSeconds(120));
        await().atMost(Duration.ofSeconds(30)).until(() -> kafka.committed(kafka.group, topic, 0) == JOBS);
        assertTrue(
                figures.secondsToRecover() >= 0 && figures.secondsToRecover() <= RECOVERY_BOUND.toSeconds(),
                "every held record ran again within " + RECOVERY_BOUND.toSeconds() + " s: " + figures);
        assertEquals(0, figures.lost(), "jobs lost: " + figures);
    }

    /**
     * The offsets the group's committed position (and its settled-beyond metadata) does not cover, up to the last
     * one the killed worker started.
     */
    private Set<Integer> unsettled(String topic, Set<Integer> started) throws Exception {
        OffsetAndMetadata committed = kafka.committedWithMetadata(kafka.group, topic, 0);
        long from = committed == null ? 0 : committed.offset();
        Set<Long> settledBeyond = new HashSet<>();
        if (committed != null) {
            for (long o : CommitMetadata.decode(committed.offset(), committed.metadata())) {
                settledBeyond.add(o);
            }
        }
        int lastStarted = started.stream().mapToInt(Integer::intValue).max().orElse(-1);
        Set<Integer> held = new TreeSet<>();
        for (long o = from; o <= lastStarted; o++) {
            if (!settledBeyond.contains(o)) {
                held.add((int) o);
            }
        }
        return held;
    }

    private static String job(int n) {
        return "{\"taskName\":\"work\",\"payload\":{\"n\":" + n + "},\"enqueuedAt\":1718900000000,\"meta\":{},"
                + "\"deliveryCount\":1,\"jobId\":\"job-" + n + "\"}";
    }
}
