package dev.backstage.runtime.kafka;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.redis.RedisDelays;
import dev.backstage.runtime.redis.RedisTestSupport;
import dev.backstage.runtime.spi.StartPosition;
import dev.backstage.runtime.spi.Subscription;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Publish/subscribe on Kafka topics: fan-out, shared groups, start position and failure redelivery, on both
 * cluster shapes ({@link KafkaShape}): the behaviour does not depend on the shape.
 */
@Tag("broker")
@ParameterizedClass(name = "{0}")
@EnumSource(KafkaShape.class)
class KafkaTopicsTest {
    record Ride(String id) {}

    private final KafkaTestSupport kafka;

    KafkaTopicsTest(KafkaShape shape) {
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

    private Worker worker(String consumerId) {
        Worker worker = Worker.builder()
                .provider(kafka.provider())
                .delays(RedisDelays.connect(redis.settings()))
                .queues("jobs")
                .consumerId(consumerId)
                .maxDeliveries(3)
                .shutdownGrace(Duration.ofSeconds(5))
                .build();
        worker.register("noop", Ride.class, (ctx, r) -> Next.done());
        workers.add(worker);
        return worker;
    }

    @Test
    void givenTwoFanOutSubscribersAndOneSharedGroupOfTwo_whenPublished_thenEachFanOutGetsAllAndTheGroupGetsEachOnce() {
        Map<String, List<String>> got = new ConcurrentHashMap<>();
        for (String id : List.of("a", "b")) {
            Worker w = worker("fan-" + id);
            w.subscribe(Subscription.fanOut("rides"), Ride.class, (ctx, ride) -> {
                got.computeIfAbsent("fan-" + id, k -> new CopyOnWriteArrayList<>())
                        .add(ride.id());
            });
            w.subscribe(Subscription.group("rides", "billing"), Ride.class, (ctx, ride) -> {
                got.computeIfAbsent("billing", k -> new CopyOnWriteArrayList<>())
                        .add(ride.id());
            });
            w.start();
        }
        for (int i = 0; i < 5; i++) {
            workers.get(0).publish("rides", new Ride("r" + i));
        }
        List<String> all = List.of("r0", "r1", "r2", "r3", "r4");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> got.getOrDefault("fan-a", List.of()).size() == 5
                        && got.getOrDefault("fan-b", List.of()).size() == 5
                        && got.getOrDefault("billing", List.of()).size() == 5);
        // Messages are handled in parallel, so arrival order is not asserted.
        assertEquals(all, got.get("fan-a").stream().sorted().toList());
        assertEquals(all, got.get("fan-b").stream().sorted().toList());
        assertEquals(all, got.get("billing").stream().sorted().toList());
    }

    @Test
    void givenMessagesPublishedBeforeSubscribing_thenEarliestSeesThemAndLatestDoesNot() {
        Worker publisher = worker("publisher");
        publisher.start();
        publisher.publish("rides", new Ride("old"));
        List<String> earliest = new CopyOnWriteArrayList<>();
        List<String> latest = new CopyOnWriteArrayList<>();
        Worker w = worker("late");
        w.subscribe(
                Subscription.group("rides", "audit").from(StartPosition.EARLIEST),
                Ride.class,
                (ctx, r) -> earliest.add(r.id()));
        w.subscribe(Subscription.group("rides", "live"), Ride.class, (ctx, r) -> latest.add(r.id()));
        w.start(); // subscribe returns once the groups have their partitions, so "latest" is fixed here
        publisher.publish("rides", new Ride("new"));
        await().atMost(Duration.ofSeconds(30)).until(() -> earliest.size() == 2 && latest.size() == 1);
        assertEquals(List.of("new", "old"), earliest.stream().sorted().toList());
        assertEquals(List.of("new"), latest);
    }

    @Test
    void givenAFailingGroup_thenOnlyThatGroupGetsTheMessageAgainByTheJobsRetryRuleAndTheOtherGroupOnce() {
        List<Integer> counts = new CopyOnWriteArrayList<>();
        List<String> steady = new CopyOnWriteArrayList<>();
        Worker w = worker("flaky");
        w.subscribe(Subscription.group("rides", "flaky"), Ride.class, (ctx, r) -> {
            counts.add(ctx.deliveryCount());
            throw new IllegalStateException("no");
        });
        w.subscribe(Subscription.group("rides", "steady"), Ride.class, (ctx, r) -> steady.add(r.id()));
        w.start();
        w.publish("rides", new Ride("r"));
        // maxDeliveries 3, the jobs' rule (a failure at deliveryCount > max is final): deliveries 1..4, then dropped.
        await().atMost(Duration.ofSeconds(30)).until(() -> counts.size() >= 4);
        await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(10)).until(() -> counts.size() == 4);
        assertEquals(List.of(1, 2, 3, 4), counts);
        assertEquals(List.of("r"), steady, "the retry reached only the failing group");
        await().atMost(Duration.ofSeconds(60)).until(() -> w.inFlight() == 0);
    }
}
