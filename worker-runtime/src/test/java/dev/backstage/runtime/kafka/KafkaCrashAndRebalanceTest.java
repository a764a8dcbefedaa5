package dev.backstage.runtime.kafka;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.redis.RedisDelays;
import dev.backstage.runtime.redis.RedisTestSupport;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Redelivery after a hard crash and across a rebalance, asserted against the broker's committed state. */
@Tag("broker")
class KafkaCrashAndRebalanceTest {
    record Job(int n) {}

    private final KafkaTestSupport kafka = new KafkaTestSupport();
    private final RedisTestSupport redis = new RedisTestSupport();
    private final List<Worker> workers = new CopyOnWriteArrayList<>();
    private Process child;

    @AfterEach
    void tearDown() throws Exception {
        if (child != null && child.isAlive()) {
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        workers.forEach(Worker::close);
        kafka.close();
        redis.close();
    }

    private static String job(int n) {
        return "{\"taskName\":\"work\",\"payload\":{\"n\":" + n + "},\"enqueuedAt\":1718900000000,\"meta\":{},"
                + "\"deliveryCount\":1,\"jobId\":\"job-" + n + "\"}";
    }

    @Test
    void givenAWorkerKilledMidBatch_whenAnotherWorkerTakesOver_thenExactlyTheUncommittedRecordsRunAgainAndNoneIsLost()
            throws Exception {
        String topic = kafka.topic("jobs");
        kafka.createTopic(topic, 1);
        for (int n = 0; n < 20; n++) {
            kafka.produceRaw(topic, 0, job(n));
        }
        Set<Integer> doneInChild = ConcurrentHashMap.newKeySet();
        child = startChild(doneInChild);

        // Jobs 0..9 run except 3, which hangs: the commit must stop at offset 3 and record 4..9 as settled.
        await().atMost(Duration.ofSeconds(60)).until(() -> doneInChild.size() == 9);
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            OffsetAndMetadata om = kafka.committedWithMetadata(kafka.group, topic, 0);
            return om != null && om.offset() == 3 && CommitMetadata.decode(3, om.metadata()).length == 6;
        });
        // Let 10..19 finish, then kill the JVM at once (SIGKILL): whatever was settled since the last commit
        // (every 500 ms in the child) was never committed.
        try (Writer stdin = new OutputStreamWriter(child.getOutputStream(), StandardCharsets.UTF_8)) {
            stdin.write("GO\n");
            stdin.flush();
            await().atMost(Duration.ofSeconds(30)).until(() -> doneInChild.size() == 19);
            child.destroyForcibly();
        }
        assertTrue(child.waitFor(10, TimeUnit.SECONDS));

        OffsetAndMetadata last = kafka.committedWithMetadata(kafka.group, topic, 0);
        Set<Integer> committedAsDone = new TreeSet<>();
        for (long o = 0; o < last.offset(); o++) {
            committedAsDone.add((int) o);
        }
        for (long o : CommitMetadata.decode(last.offset(), last.metadata())) {
            committedAsDone.add((int) o);
        }
        Set<Integer> expectedAgain = new TreeSet<>();
        for (int n = 0; n < 20; n++) {
            if (!committedAsDone.contains(n)) {
                expectedAgain.add(n);
            }
        }
        System.out.println("crash test: committed " + last.offset() + " + " + committedAsDone.size()
                + " settled; expecting again " + expectedAgain);
        assertEquals(3, last.offset(), "the hanging job 3 was never settled");
        assertTrue(expectedAgain.contains(3));
        assertFalse(expectedAgain.contains(0) || expectedAgain.contains(4), "committed work must not run again");

        List<Integer> ranAfterRestart = new CopyOnWriteArrayList<>();
        Worker survivor = Worker.builder()
                .provider(kafka.provider())
                .delays(RedisDelays.connect(redis.settings()))
                .queues("jobs")
                .concurrency(8)
                .shutdownGrace(Duration.ofSeconds(5))
                .build();
        workers.add(survivor);
        survivor.register("work", Job.class, (ctx, j) -> {
            ranAfterRestart.add(j.n());
            return Next.done();
        });
        survivor.start();
        System.out.println("crash test: waiting for the group to evict the killed member (session timeout 6 s)");
        await().atMost(Duration.ofSeconds(60)).until(() -> kafka.committed(kafka.group, topic, 0) == 20);
        assertEquals(
                expectedAgain, new TreeSet<>(ranAfterRestart), "exactly the records the broker had not seen settled");
        assertEquals(expectedAgain.size(), ranAfterRestart.size(), "each of them once");
        Set<Integer> all = new TreeSet<>(doneInChild);
        all.addAll(ranAfterRestart);
        assertEquals(20, all.size(), "nothing lost");
    }

    private Process startChild(Set<Integer> done) throws Exception {
        return ChildJvm.start(
                KafkaCrashWorkerMain.class,
                "kafka-crash-child.log",
                line -> {
                    if (line.startsWith("DONE ")) {
                        done.add(Integer.parseInt(line.substring(5).trim()));
                    }
                },
                kafka.bootstrap,
                kafka.prefix,
                kafka.group,
                RedisTestSupport.URL,
                redis.prefix());
    }

    @Test
    void givenASecondWorkerJoiningMidBatch_whenPartitionsMove_thenEveryJobRunsExactlyOnce() throws Exception {
        String topic = kafka.topic("jobs");
        kafka.createTopic(topic, 2);
        for (int n = 0; n < 80; n++) {
            kafka.produceRaw(topic, n % 2, job(n));
        }
        Map<Integer, AtomicInteger> runs = new ConcurrentHashMap<>();
        Set<Integer> byA = ConcurrentHashMap.newKeySet();
        Set<Integer> byB = ConcurrentHashMap.newKeySet();
        Worker a = worker("worker-a", byA, runs);
        a.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> byA.size() >= 4);
        // B joins while A has records in flight on both partitions: A must let its revoked partition's
        // in-flight records finish and commit them before B reads from there.
        Worker b = worker("worker-b", byB, runs);
        b.start();
        await().atMost(Duration.ofSeconds(60)).until(() -> runs.size() == 80);
        await().atMost(Duration.ofSeconds(30))
                .until(() ->
                        kafka.committed(kafka.group, topic, 0) == 40 && kafka.committed(kafka.group, topic, 1) == 40);
        List<Integer> twice = new ArrayList<>();
        runs.forEach((n, count) -> {
            if (count.get() != 1) {
                twice.add(n);
            }
        });
        assertEquals(List.of(), twice, "jobs that ran more than once");
        assertFalse(byB.isEmpty(), "the second worker got a partition");
        System.out.println("rebalance test: A ran " + byA.size() + ", B ran " + byB.size());
    }

    private Worker worker(String id, Set<Integer> mine, Map<Integer, AtomicInteger> runs) {
        // A short heartbeat so A hears of the rebalance within half a second (the default is 3 s), while
        // 80 jobs of 150 ms at concurrency 4 keep it busy for 3 s.
        KafkaSettings settings = kafka.settings().withClientProperties(Map.of("heartbeat.interval.ms", "500"));
        Worker worker = Worker.builder()
                .provider(KafkaProvider.connect(settings))
                .delays(RedisDelays.connect(redis.settings()))
                .queues("jobs")
                .concurrency(4)
                .consumerId(id)
                .shutdownGrace(Duration.ofSeconds(5))
                .build();
        workers.add(worker);
        worker.register("work", Job.class, (ctx, j) -> {
            Thread.sleep(150); // simulated work, so records are in flight when the group rebalances
            mine.add(j.n());
            runs.computeIfAbsent(j.n(), k -> new AtomicInteger()).incrementAndGet();
            return Next.done();
        });
        return worker;
    }
}
