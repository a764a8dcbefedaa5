package dev.backstage.runtime.kafka;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.redis.RedisDelays;
import dev.backstage.runtime.redis.RedisTestSupport;
import dev.backstage.runtime.spi.Backoff;
import dev.backstage.runtime.spi.Subscription;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A topic retry on Kafka goes to the failing group's own retry topic: durable, committed past on the topic at
 * once, seen by no other group; past the retry policy the message goes to the group's dead-letter topic with the
 * reason. Every check reads the broker's own state (committed offsets, the retry and dead-letter topics' records).
 */
@Tag("broker")
class KafkaTopicRetryTest {
    record Ride(String id) {}

    /** What a handler saw: the delivery count, the message id and, for a retry, A's committed offset then. */
    record Run(int deliveryCount, String messageId, long committedOnTopic) {}

    private final KafkaTestSupport kafka = new KafkaTestSupport();
    private final RedisTestSupport redis = new RedisTestSupport();
    private final KafkaNames names = new KafkaNames(kafka.prefix);
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

    private Worker worker(String consumerId, int maxDeliveries, Duration backoff) {
        Worker worker = Worker.builder()
                .provider(kafka.provider())
                .delays(RedisDelays.connect(redis.settings()))
                .queues("jobs")
                .consumerId(consumerId)
                .maxDeliveries(maxDeliveries)
                .backoff(Backoff.fixed(backoff))
                .shutdownGrace(Duration.ofSeconds(5))
                .build();
        worker.register("noop", Ride.class, (ctx, r) -> Next.done());
        workers.add(worker);
        return worker;
    }

    private static long offsetOf(String messageId) {
        return Long.parseLong(messageId.substring(messageId.lastIndexOf(':') + 1));
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String key) {
        Header h = record.headers().lastHeader(key);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    @Test
    void givenTwoGroupsAndAHandlerFailingOnceInA_thenBRunsOnceARunsTwiceAndAsTopicOffsetPassedTheMessageFirst()
            throws Exception {
        String topic = names.topicTopic("rides");
        String groupA = names.sharedGroup("a");
        List<Run> aRuns = new CopyOnWriteArrayList<>();
        List<String> bRuns = new CopyOnWriteArrayList<>();
        Worker w = worker("retry-ab", 3, Duration.ofSeconds(3));
        w.subscribe(Subscription.group("rides", "a"), Ride.class, (ctx, ride) -> {
            long committed = ctx.deliveryCount() == 1 ? -1 : kafka.committed(groupA, topic, 0);
            aRuns.add(new Run(ctx.deliveryCount(), ctx.messageId(), committed));
            if (ctx.deliveryCount() == 1) {
                throw new IllegalStateException("fails once");
            }
        });
        w.subscribe(Subscription.group("rides", "b"), Ride.class, (ctx, ride) -> bRuns.add(ctx.messageId()));
        w.start();
        String id = w.publish("rides", new Ride("r1"));
        long offset = offsetOf(id);

        await().atMost(Duration.ofSeconds(60)).until(() -> aRuns.size() == 2);
        await().during(Duration.ofMillis(1500))
                .atMost(Duration.ofSeconds(10))
                .until(() -> aRuns.size() == 2 && bRuns.size() == 1);
        assertEquals(List.of(id), bRuns, "group B ran the message exactly once");
        assertEquals(1, aRuns.get(0).deliveryCount());
        assertEquals(2, aRuns.get(1).deliveryCount());
        assertEquals(id, aRuns.get(1).messageId(), "the retry keeps the message id");
        assertTrue(
                aRuns.get(1).committedOnTopic() > offset,
                "when the retry ran, A's committed offset on " + topic + " was "
                        + aRuns.get(1).committedOnTopic() + ", not past the message at " + offset);

        // Broker state: nothing was republished to the shared topic; the copy is in A's retry topic only.
        assertEquals(offset + 1, kafka.endOffset(topic, 0), "nothing republished to the shared topic");
        String retryA = names.topicRetryTopic("rides", groupA);
        String retryB = names.topicRetryTopic("rides", names.sharedGroup("b"));
        assertEquals(1, kafka.endOffset(retryA, 0), "one retry copy in A's retry topic");
        assertEquals(0, kafka.endOffset(retryB, 0), "no retry copy for group B");
        ConsumerRecord<byte[], byte[]> copy = kafka.readAll(retryA, 1).get(0);
        assertEquals("2", header(copy, TopicRetryHeaders.DELIVERY_COUNT));
        assertEquals(topic, header(copy, TopicRetryHeaders.ORIGINAL_TOPIC));
        assertEquals(Long.toString(offset), header(copy, TopicRetryHeaders.ORIGINAL_OFFSET));
        assertTrue(header(copy, TopicRetryHeaders.ERROR).contains("fails once"), header(copy, TopicRetryHeaders.ERROR));
        assertArrayEquals(kafka.readAll(topic, 1).get(0).value(), copy.value(), "the copy keeps the original bytes");
        // The retry settled and was committed on the retry topic; both groups are past the message on the topic.
        await().atMost(Duration.ofSeconds(60))
                .until(() -> kafka.committed(groupA, retryA, 0) == 1
                        && kafka.committed(groupA, topic, 0) == offset + 1
                        && kafka.committed(names.sharedGroup("b"), topic, 0) == offset + 1);
    }

    @Test
    void givenTheSubscriberKilledAfterTheRetryWasStored_whenItRestarts_thenTheRetryRunsFromTheRetryTopic()
            throws Exception {
        String topic = names.topicTopic("rides");
        String groupA = names.sharedGroup("a");
        String retryA = names.topicRetryTopic("rides", groupA);
        List<String> childRuns = new CopyOnWriteArrayList<>();
        child = startChild("retry-crash", childRuns);
        await().atMost(Duration.ofSeconds(60)).until(() -> childRuns.contains("STARTED"));
        Worker publisher = worker("publisher", 3, Duration.ofSeconds(1));
        publisher.start();
        String id = publisher.publish("rides", new Ride("r1"));
        long offset = offsetOf(id);

        // The child failed delivery 1: the copy is stored and A's offset on the topic passed the message.
        await().atMost(Duration.ofSeconds(60))
                .until(() -> childRuns.contains("RUN 1 " + id)
                        && kafka.endOffset(retryA, 0) == 1
                        && kafka.committed(groupA, topic, 0) == offset + 1);
        child.destroyForcibly(); // SIGKILL: no close, no commit, no leaving the group
        assertTrue(child.waitFor(10, TimeUnit.SECONDS));
        assertTrue(kafka.committed(groupA, retryA, 0) < 1, "the killed subscriber never committed the retry");

        // The same consumer id again (a restarted pod): it takes the partitions back and runs the stored retry.
        List<Run> runs = new CopyOnWriteArrayList<>();
        Worker restarted = worker("retry-crash", 3, KafkaTopicRetryCrashMain.BACKOFF);
        restarted.subscribe(
                Subscription.group("rides", "a"),
                Ride.class,
                (ctx, ride) -> runs.add(new Run(ctx.deliveryCount(), ctx.messageId(), -1)));
        restarted.start();
        await().atMost(Duration.ofSeconds(60)).until(() -> !runs.isEmpty());
        await().atMost(Duration.ofSeconds(60)).until(() -> kafka.committed(groupA, retryA, 0) == 1);
        assertEquals(List.of(new Run(2, id, -1)), runs, "the retry ran once more, as delivery 2, nothing lost");
        System.out.println("topic retry crash: child ran "
                + childRuns.stream().filter(l -> l.startsWith("RUN")).toList()
                + "; after the kill the restarted subscriber ran " + runs);
    }

    @Test
    void givenAHandlerThatAlwaysFails_thenAfterMaxDeliveriesTheMessageIsDeadLetteredWithTheError() throws Exception {
        String topic = names.topicTopic("rides");
        String groupA = names.sharedGroup("a");
        List<Integer> counts = new CopyOnWriteArrayList<>();
        Worker w = worker("retry-dl", 1, Duration.ofMillis(200));
        w.subscribe(Subscription.group("rides", "a"), Ride.class, (ctx, ride) -> {
            counts.add(ctx.deliveryCount());
            throw new IllegalArgumentException("bad ride " + ride.id());
        });
        w.start();
        String id = w.publish("rides", new Ride("r9"));
        long offset = offsetOf(id);

        String deadLetters = names.topicDeadLetterTopic("rides", groupA);
        await().atMost(Duration.ofSeconds(60)).until(() -> kafka.endOffset(deadLetters, 0) == 1);
        // maxDeliveries 1, the jobs' rule: deliveries 1 and 2, then dead-lettered.
        assertEquals(List.of(1, 2), counts);
        ConsumerRecord<byte[], byte[]> dead = kafka.readAll(deadLetters, 1).get(0);
        String error = header(dead, TopicRetryHeaders.ERROR);
        assertTrue(error.contains("bad ride r9") && error.contains("failed 2 times"), error);
        assertEquals("2", header(dead, TopicRetryHeaders.DELIVERY_COUNT));
        assertEquals(Long.toString(offset), header(dead, TopicRetryHeaders.ORIGINAL_OFFSET));
        assertArrayEquals(
                kafka.readAll(topic, 1).get(0).value(), dead.value(), "the dead letter keeps the original bytes");
        String retryA = names.topicRetryTopic("rides", groupA);
        await().atMost(Duration.ofSeconds(60))
                .until(() ->
                        kafka.committed(groupA, topic, 0) == offset + 1 && kafka.committed(groupA, retryA, 0) == 1);
        assertEquals(List.of(1, 2), counts, "not run again after the dead letter");
    }

    @Test
    void givenFanOutSubscribers_whenTheWorkerClosesCleanly_thenDrainedRetryTopicsAreDeletedAndDeadLettersKept()
            throws Exception {
        List<Integer> rides = new CopyOnWriteArrayList<>();
        List<Integer> tolls = new CopyOnWriteArrayList<>();
        Worker w = worker("fan-clean", 1, Duration.ofMillis(200));
        w.subscribe(Subscription.fanOut("rides"), Ride.class, (ctx, ride) -> {
            rides.add(ctx.deliveryCount());
            if (ctx.deliveryCount() == 1) {
                throw new IllegalStateException("fails once");
            }
        });
        w.subscribe(Subscription.fanOut("tolls"), Ride.class, (ctx, ride) -> {
            tolls.add(ctx.deliveryCount());
            throw new IllegalStateException("always fails");
        });
        w.start();
        w.publish("rides", new Ride("r1"));
        w.publish("tolls", new Ride("t1"));
        String group = names.fanOutGroup("fan-clean");
        String tollsDeadLetters = names.topicDeadLetterTopic("tolls", group);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> rides.size() == 2 && kafka.endOffset(tollsDeadLetters, 0) == 1);
        List<String> created = List.of(
                names.topicRetryTopic("rides", group),
                names.topicDeadLetterTopic("rides", group),
                names.topicRetryTopic("tolls", group),
                tollsDeadLetters);
        assertTrue(kafka.admin().listTopics().names().get(30, TimeUnit.SECONDS).containsAll(created), "all four exist");

        w.close();
        java.util.Set<String> left = kafka.admin().listTopics().names().get(30, TimeUnit.SECONDS);
        assertTrue(
                !left.contains(created.get(0)) && !left.contains(created.get(1)),
                "the drained fan-out group's retry and dead-letter topics are deleted: " + left);
        assertTrue(
                left.contains(created.get(2)) && left.contains(created.get(3)),
                "a fan-out group with a dead letter keeps its topics: " + left);
        assertEquals(List.of(1, 2), rides);
        assertEquals(List.of(1, 2), tolls);
    }

    private Process startChild(String consumerId, List<String> lines) throws IOException {
        return ChildJvm.start(
                KafkaTopicRetryCrashMain.class,
                "kafka-topic-retry-child.log",
                lines::add,
                kafka.bootstrap,
                kafka.prefix,
                kafka.group,
                RedisTestSupport.URL,
                redis.prefix(),
                consumerId);
    }
}
