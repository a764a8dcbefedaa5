package dev.backstage.runtime.kafka;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.Capability;
import dev.backstage.runtime.api.CapabilityMissingException;
import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.redis.RedisDelays;
import dev.backstage.runtime.redis.RedisTestSupport;
import dev.backstage.runtime.spi.Backoff;
import dev.backstage.runtime.spi.DeadLetterEntry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The delivery model with Redis delays as the retry store, on both cluster shapes: the in-process single broker and
 * a 3-broker cluster with replication factor 3 and min ISR 2 (the behaviour does not depend on the shape).
 */
@ParameterizedClass(name = "{0}")
@EnumSource(KafkaShape.class)
@Tag("broker")
class KafkaWorkerTest {
    record Job(int n) {}

    private final KafkaTestSupport kafka;

    KafkaWorkerTest(KafkaShape shape) {
        this.kafka = new KafkaTestSupport(shape);
    }

    private final RedisTestSupport redis = new RedisTestSupport();
    private final List<Worker> workers = new CopyOnWriteArrayList<>();

    @AfterEach
    void tearDown() {
        workers.forEach(Worker::close);
        kafka.close();
        redis.close();
    }

    private Worker.Builder builder(int concurrency) {
        return Worker.builder()
                .provider(kafka.provider())
                .delays(RedisDelays.connect(redis.settings()))
                .queues("jobs")
                .concurrency(concurrency)
                .shutdownGrace(Duration.ofSeconds(5))
                .backoff(Backoff.fixed(Duration.ofMillis(200)));
    }

    private Worker track(Worker worker) {
        workers.add(worker);
        return worker;
    }

    @Test
    void givenPublishedJobs_whenAWorkerRuns_thenEachRunsOnceWithItsJobIdAndTheGroupCommitsToTheEnd() throws Exception {
        Worker worker = track(builder(8).build());
        Map<Integer, String> seen = new ConcurrentHashMap<>();
        AtomicInteger runs = new AtomicInteger();
        worker.register("work", Job.class, (ctx, job) -> {
            runs.incrementAndGet();
            seen.put(job.n(), ctx.jobId());
            return Next.done();
        });
        worker.start();
        Map<Integer, String> published = new ConcurrentHashMap<>();
        for (int i = 0; i < 30; i++) {
            published.put(
                    i,
                    worker.enqueue("work", new Job(i), EnqueueOptions.onQueue("jobs"))
                            .id());
        }
        String topic = kafka.topic("jobs");
        await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == 30);
        await().atMost(Duration.ofSeconds(60)).until(() -> kafka.committed(kafka.group, topic, 0) == 30);
        assertEquals(published, seen, "the handler sees the id enqueue returned");
        assertEquals(30, runs.get());
        assertEquals(30, kafka.endOffset(topic, 0));
    }

    @Test
    void givenAnEarlierRecordStillRunning_whenLaterOnesFinish_thenTheCommitWaitsForItAndRecordsTheFinishedOnes()
            throws Exception {
        Worker worker = track(builder(4).build());
        CountDownLatch release = new CountDownLatch(1);
        Set<Integer> done = ConcurrentHashMap.newKeySet();
        worker.register("work", Job.class, (ctx, job) -> {
            if (job.n() == 0) {
                release.await(30, TimeUnit.SECONDS);
            }
            done.add(job.n());
            return Next.done();
        });
        for (int i = 0; i < 6; i++) {
            worker.enqueue("work", new Job(i), EnqueueOptions.onQueue("jobs"));
        }
        worker.start();
        String topic = kafka.topic("jobs");
        await().atMost(Duration.ofSeconds(30)).until(() -> done.containsAll(Set.of(1, 2, 3, 4, 5)));
        // Offsets 1..5 are settled but 0 is not: the commit must stay at 0, with 1..5 in its metadata.
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            OffsetAndMetadata om = kafka.committedWithMetadata(kafka.group, topic, 0);
            return om != null && CommitMetadata.decode(om.offset(), om.metadata()).length == 5;
        });
        OffsetAndMetadata stuck = kafka.committedWithMetadata(kafka.group, topic, 0);
        assertEquals(0, stuck.offset());
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L), toList(CommitMetadata.decode(0, stuck.metadata())));
        assertFalse(done.contains(0));

        release.countDown();
        await().atMost(Duration.ofSeconds(60)).until(() -> kafka.committed(kafka.group, topic, 0) == 6);
        assertEquals("", kafka.committedWithMetadata(kafka.group, topic, 0).metadata());
    }

    @Test
    void givenConcurrencyThree_whenManyJobsWait_thenExactlyThreeRunAtOnce() throws Exception {
        Worker worker = track(builder(3).build());
        AtomicInteger running = new AtomicInteger();
        AtomicInteger maxRunning = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger finished = new AtomicInteger();
        worker.register("work", Job.class, (ctx, job) -> {
            maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
            release.await(30, TimeUnit.SECONDS);
            running.decrementAndGet();
            finished.incrementAndGet();
            return Next.done();
        });
        for (int i = 0; i < 12; i++) {
            worker.enqueue("work", new Job(i), EnqueueOptions.onQueue("jobs"));
        }
        worker.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> running.get() == 3);
        // Room is full: the loop must not hand out a fourth record while these three hold their slots.
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> running.get() == 3);
        assertEquals(3, worker.inFlight());
        release.countDown();
        await().atMost(Duration.ofSeconds(30)).until(() -> finished.get() == 12);
        assertEquals(3, maxRunning.get());
    }

    @Test
    void givenNoDelaysCapability_whenTheWorkerStarts_thenItFailsAndSaysHowToSupplyRedisDelays() {
        Worker worker =
                track(Worker.builder().provider(kafka.provider()).queues("jobs").build());
        worker.register("work", Job.class, (ctx, job) -> Next.done());
        CapabilityMissingException e = assertThrows(CapabilityMissingException.class, worker::start);
        assertEquals(Capability.DELAYS, e.capability());
        assertEquals("kafka", e.provider());
        assertTrue(e.getMessage().contains("RedisDelays.connect("), e.getMessage());
        assertFalse(worker.isRunning());
    }

    @Test
    void givenAJobThatAlwaysFails_whenRetriedThroughRedisDelays_thenItIsDeadLetteredWithTheErrorAndItsJobId()
            throws Exception {
        Worker worker = track(builder(4).maxDeliveries(2).build());
        List<Integer> deliveries = new CopyOnWriteArrayList<>();
        Set<String> jobIds = ConcurrentHashMap.newKeySet();
        worker.register("flaky", Job.class, (ctx, job) -> {
            deliveries.add(ctx.deliveryCount());
            jobIds.add(ctx.jobId());
            throw new IllegalStateException("boom " + ctx.deliveryCount());
        });
        worker.start();
        String jobId = worker.enqueue("flaky", new Job(7), EnqueueOptions.onQueue("jobs"))
                .id();

        // max 2 retries: deliveries 1, 2, 3, each retry copy going through Redis and back onto the topic.
        await().atMost(Duration.ofSeconds(30)).until(() -> worker.totals().deadLetters() == 1);
        assertEquals(List.of(1, 2, 3), deliveries);
        assertEquals(Set.of(jobId), jobIds, "retry copies keep the job id");
        assertEquals(0, redis.redis().zcard(redis.prefix() + ":scheduled"), "nothing left in the delay set");

        var topic = kafka.topic("jobs");
        await().atMost(Duration.ofSeconds(60)).until(() -> kafka.committed(kafka.group, topic, 0) == 3);
        List<DeadLetterEntry> dead = deadLetters("jobs");
        assertEquals(1, dead.size());
        DeadLetterEntry entry = dead.get(0);
        assertEquals("flaky", entry.taskName());
        assertEquals("{\"n\":7}", entry.payloadJson());
        assertEquals("IllegalStateException: boom 3", entry.error());
        assertEquals(3, entry.deliveryCount());
        assertEquals(topic + ":0:2", entry.originalId(), "the copy that failed last");
        var value = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(KafkaTestSupport.text(
                        kafka.readAll(kafka.topic("jobs.dead-letter"), 1).get(0)));
        assertEquals(jobId, value.get("jobId").asText());
        assertTrue(value.get("deadLetteredAt").asLong() > 0);
    }

    @Test
    void givenAnUnknownTaskAndAValueThatIsNotAJob_whenDelivered_thenBothAreDeadLetteredWithTheReason()
            throws Exception {
        Worker worker = track(builder(4).build());
        worker.register("known", Job.class, (ctx, job) -> Next.done());
        String topic = kafka.topic("jobs");
        kafka.createTopic(topic, 1);
        kafka.produceRaw(
                topic,
                0,
                "{\"taskName\":\"nobody-owns-this\",\"payload\":{\"n\":1},\"enqueuedAt\":1718900000000,\"meta\":{},\"deliveryCount\":1}",
                "this is not JSON");
        worker.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> kafka.committed(kafka.group, topic, 0) == 2);
        List<DeadLetterEntry> dead = deadLetters("jobs");
        assertEquals(2, dead.size());
        DeadLetterEntry unknown = dead.stream()
                .filter(d -> "nobody-owns-this".equals(d.taskName()))
                .findFirst()
                .orElseThrow();
        assertEquals("unknown task 'nobody-owns-this'", unknown.error());
        assertEquals(topic + ":0:0", unknown.originalId());
        DeadLetterEntry garbage =
                dead.stream().filter(d -> d.taskName() == null).findFirst().orElseThrow();
        assertEquals("this is not JSON", garbage.payloadJson(), "the raw value is kept");
        assertTrue(garbage.error().startsWith("record value is not a JSON job"), garbage.error());
    }

    @Test
    void givenTheShutdownGraceRunsOut_whenTheWorkerCloses_thenOnlyTheUnfinishedRecordIsLeftForTheNextWorker()
            throws Exception {
        String topic = kafka.topic("jobs");
        Worker first = track(builder(4).shutdownGrace(Duration.ofMillis(300)).build());
        Set<Integer> doneByFirst = ConcurrentHashMap.newKeySet();
        CountDownLatch never = new CountDownLatch(1);
        first.register("work", Job.class, (ctx, job) -> {
            if (job.n() == 1) {
                never.await(); // still running when the grace ends: interrupted and left uncommitted
            }
            doneByFirst.add(job.n());
            return Next.done();
        });
        for (int i = 0; i < 4; i++) {
            first.enqueue("work", new Job(i), EnqueueOptions.onQueue("jobs"));
        }
        first.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> doneByFirst.containsAll(Set.of(0, 2, 3)));
        first.close();
        OffsetAndMetadata om = kafka.committedWithMetadata(kafka.group, topic, 0);
        assertEquals(1, om.offset(), "the commit stops at the unfinished record");
        assertEquals(List.of(2L, 3L), toList(CommitMetadata.decode(1, om.metadata())));

        List<Integer> ranBySecond = new CopyOnWriteArrayList<>();
        Worker second = track(builder(4).build());
        second.register("work", Job.class, (ctx, job) -> {
            ranBySecond.add(job.n());
            return Next.done();
        });
        second.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> kafka.committed(kafka.group, topic, 0) == 4);
        assertEquals(List.of(1), ranBySecond, "only the unfinished record runs again");
    }

    private List<DeadLetterEntry> deadLetters(String queue) {
        try (KafkaProvider provider = kafka.provider()) {
            return provider.deadLetters().list(queue, 100);
        }
    }

    private static List<Long> toList(long[] values) {
        List<Long> out = new ArrayList<>();
        for (long v : values) {
            out.add(v);
        }
        return out;
    }
}
