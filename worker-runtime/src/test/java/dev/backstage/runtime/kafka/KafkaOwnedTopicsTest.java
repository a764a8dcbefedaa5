package dev.backstage.runtime.kafka;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.redis.RedisDelays;
import dev.backstage.runtime.redis.RedisTestSupport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewPartitions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Topics a BackstageTopology owns ({@code createTopics=false}, as the operator renders it for its pools): a worker
 * that starts before its topology never creates them with its own partition count, and a running worker follows
 * partitions added to them within its metadata refresh.
 */
@Tag("broker")
class KafkaOwnedTopicsTest {
    record Job(int n) {}

    private final KafkaTestSupport kafka = new KafkaTestSupport();
    private final RedisTestSupport redis = new RedisTestSupport();
    private final List<Worker> workers = new CopyOnWriteArrayList<>();

    @AfterEach
    void tearDown() {
        workers.forEach(Worker::close);
        kafka.close();
        redis.close();
    }

    private Worker worker() {
        Worker worker = Worker.builder()
                .provider(KafkaProvider.connect(
                        kafka.settings().withCreateTopics(false).withPartitions(1)))
                .delays(RedisDelays.connect(redis.settings()))
                .queues("jobs")
                .concurrency(4)
                .shutdownGrace(Duration.ofSeconds(5))
                .build();
        workers.add(worker);
        return worker;
    }

    @Test
    void givenTheTopologyHasNotDeclaredTheTopicYet_thenTheWorkerFailsNamingIt_andCreatesNothing() throws Exception {
        Worker worker = worker();
        worker.register("work", Job.class, (ctx, job) -> Next.done());
        String topic = kafka.topic("jobs");

        RuntimeException failed = assertThrows(RuntimeException.class, worker::start);
        String message = failed.getMessage() + " "
                + (failed.getCause() == null ? "" : failed.getCause().getMessage());
        assertTrue(
                message.contains("Kafka topic " + topic + " does not exist") && message.contains("createTopics=false"),
                message);
        Set<String> topics = kafka.admin().listTopics().names().get(30, TimeUnit.SECONDS);
        assertFalse(topics.contains(topic), "the worker created " + topic + ": " + topics);
        assertFalse(topics.contains(kafka.topic("jobs") + ".dead-letter"), topics.toString());
    }

    @Test
    void givenPartitionsAreAddedToTheTopic_thenARunningWorkerConsumesTheNewOnes() throws Exception {
        String topic = kafka.topic("jobs");
        kafka.createTopic(topic, 1); // as the topology declared it at first
        Worker worker = worker();
        Set<Integer> done = ConcurrentHashMap.newKeySet();
        worker.register("work", Job.class, (ctx, job) -> {
            done.add(job.n());
            return Next.done();
        });
        worker.start();
        kafka.produceRaw(topic, 0, job(0));
        await().atMost(Duration.ofSeconds(30)).until(() -> done.contains(0));

        // The topology is changed to 3 partitions; jobs land on the new ones.
        kafka.admin()
                .createPartitions(Map.of(topic, NewPartitions.increaseTo(3)))
                .all()
                .get(30, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(60))
                .ignoreExceptions()
                .until(() -> kafka.admin()
                                .describeTopics(List.of(topic))
                                .allTopicNames()
                                .get(30, TimeUnit.SECONDS)
                                .get(topic)
                                .partitions()
                                .size()
                        == 3);
        kafka.produceRaw(topic, 1, job(1));
        kafka.produceRaw(topic, 2, job(2));
        // Within a few metadata refreshes (10 s each); the client default of 5 minutes would leave them unread.
        await().atMost(Duration.ofSeconds(60)).until(() -> done.containsAll(Set.of(1, 2)));
        await().atMost(Duration.ofSeconds(30))
                .until(() ->
                        kafka.committed(kafka.group, topic, 1) == 1 && kafka.committed(kafka.group, topic, 2) == 1);
        assertEquals(Set.of(0, 1, 2), done);
    }

    private static String job(int n) {
        return "{\"taskName\":\"work\",\"payload\":{\"n\":" + n + "},\"enqueuedAt\":1718900000000,\"meta\":{},"
                + "\"deliveryCount\":1}";
    }
}
