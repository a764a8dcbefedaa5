package dev.backstage.runtime.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.Capability;
import dev.backstage.runtime.api.CapabilityMissingException;
import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.spi.JobsCapability;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.StartPosition;
import dev.backstage.runtime.spi.Subscription;
import dev.backstage.testsupport.SharedBroker;
import dev.backstage.testsupport.UsesSharedBrokers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Capability resolution, supplied capabilities, and the explicit failures when one is missing, in each connection
 * mode (one node, the 6-node cluster, the Sentinel group); the keys are the mode's own layout.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
@UsesSharedBrokers({SharedBroker.REDIS_CLUSTER, SharedBroker.REDIS_SENTINEL})
@Tag("broker")
class RedisCapabilitiesTest {
    private final RedisTestSupport redis;
    private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();

    RedisCapabilitiesTest(RedisMode mode) {
        this.redis = new RedisTestSupport(mode);
    }

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
        redis.close();
    }

    /** A provider that supplies jobs only (borrowing Redis for the mechanics), like a bare broker would. */
    private Provider jobsOnly(RedisProvider inner, boolean retryNeedsDelays) {
        return new JobsOnlyProvider(inner) {
            @Override
            JobsCapability jobs(JobsCapability jobs) {
                return new JobsCapability() {
                    @Override
                    public String publish(dev.backstage.runtime.spi.OutgoingJob job) {
                        return jobs.publish(job);
                    }

                    @Override
                    public dev.backstage.runtime.spi.JobConsumer consume(
                            dev.backstage.runtime.spi.ConsumerSettings s, dev.backstage.runtime.spi.DeliverySink sink) {
                        return jobs.consume(s, sink);
                    }

                    @Override
                    public List<String> defaultQueues() {
                        return jobs.defaultQueues();
                    }

                    @Override
                    public boolean retryNeedsDelays() {
                        return retryNeedsDelays;
                    }
                };
            }
        };
    }

    @Test
    void givenAProviderWithoutDelaysWhoseRetryNeedsThem_thenStartFailsNamingProviderCapabilityAndFix() {
        Worker worker =
                Worker.builder().provider(jobsOnly(redis.provider(), true)).build();
        closeables.add(worker);
        CapabilityMissingException e = assertThrows(CapabilityMissingException.class, worker::start);
        assertEquals("jobs-only", e.provider());
        assertEquals(Capability.DELAYS, e.capability());
        assertTrue(e.getMessage().contains("RedisDelays.connect"), e.getMessage());
        assertTrue(
                e.getMessage().startsWith("provider 'jobs-only' does not supply the 'delays' capability"),
                e.getMessage());
    }

    @Test
    void givenNoDelaysOrDedupe_thenEachCallThatNeedsThemFailsExplicitlyAndNothingIsWritten() {
        Worker worker =
                Worker.builder().provider(jobsOnly(redis.provider(), false)).build();
        closeables.add(worker);
        var delay = assertThrows(
                CapabilityMissingException.class, () -> worker.schedule("t", Map.of(), Duration.ofSeconds(1)));
        assertEquals(Capability.DELAYS, delay.capability());
        var dedupe = assertThrows(
                CapabilityMissingException.class,
                () -> worker.enqueue("t", Map.of(), EnqueueOptions.defaults().dedupe("k", Duration.ofSeconds(5))));
        assertEquals(Capability.DEDUPE, dedupe.capability());
        var topics = assertThrows(
                CapabilityMissingException.class,
                () -> worker.subscribe(Subscription.fanOut("news"), Map.class, (ctx, p) -> {}));
        assertEquals(Capability.TOPICS, topics.capability());
        assertEquals(0, redis.redis().exists(redis.keys().stream("default")), "no job was written");
    }

    @Test
    void givenSuppliedRedisDelays_thenTheReportNamesThemAndClaimModePromotesThroughTheJobsProvider() {
        RedisDelays delays = RedisDelays.connect(redis.settings());
        Worker worker = Worker.builder()
                .provider(jobsOnly(redis.provider(), true))
                .delays(delays)
                .queues("default")
                .build();
        closeables.add(worker);
        List<String> seen = new CopyOnWriteArrayList<>();
        worker.register("later", Map.class, (ctx, p) -> {
            seen.add(String.valueOf(p.get("n")));
            return Next.done();
        });
        worker.start();
        assertTrue(worker.capabilityReport().contains("delays  from redis (supplied)"), worker.capabilityReport());
        assertTrue(worker.capabilityReport().contains("dedupe  MISSING"), worker.capabilityReport());

        worker.schedule("later", Map.of("n", 1), Duration.ofMillis(300));
        // An abandoned claim (a worker died between claim and publish) is claimed again.
        String abandoned = "{\"taskName\":\"later\",\"payload\":\"{\\\"n\\\":2}\",\"enqueuedAt\":1,\"streamKey\":\""
                + redis.keys().stream("default") + "\",\"priority\":\"default\"}";
        redis.redis().zadd(redis.keys().scheduledClaimed("default"), System.currentTimeMillis() - 60_000, abandoned);

        await().atMost(Duration.ofSeconds(60)).until(() -> seen.size() == 2);
        assertEquals(Set.of("1", "2"), Set.copyOf(seen));
        assertEquals(0, redis.redis().zcard(redis.keys().scheduled("default")));
        assertEquals(0, redis.redis().zcard(redis.keys().scheduledClaimed("default")));
    }

    @Test
    void givenTopics_thenFanOutSubscribersEachGetEveryMessageAndAGroupSharesThem() {
        Set<String> a = ConcurrentHashMap.newKeySet();
        Set<String> b = ConcurrentHashMap.newKeySet();
        List<String> billing = new CopyOnWriteArrayList<>();
        Worker w1 = Worker.builder().provider(redis.provider()).consumerId("w1").build();
        Worker w2 = Worker.builder().provider(redis.provider()).consumerId("w2").build();
        closeables.add(w1);
        closeables.add(w2);
        w1.subscribe(
                Subscription.fanOut("ride.cancelled").from(StartPosition.EARLIEST),
                Map.class,
                (ctx, p) -> a.add(String.valueOf(p.get("rideId"))));
        w2.subscribe(
                Subscription.fanOut("ride.cancelled").from(StartPosition.EARLIEST),
                Map.class,
                (ctx, p) -> b.add(String.valueOf(p.get("rideId"))));
        w1.subscribe(
                Subscription.group("ride.cancelled", "billing").from(StartPosition.EARLIEST),
                Map.class,
                (ctx, p) -> billing.add(String.valueOf(p.get("rideId"))));
        w2.subscribe(
                Subscription.group("ride.cancelled", "billing").from(StartPosition.EARLIEST),
                Map.class,
                (ctx, p) -> billing.add(String.valueOf(p.get("rideId"))));
        w1.start();
        w2.start();
        for (int i = 0; i < 10; i++) {
            w1.publish("ride.cancelled", Map.of("rideId", "r" + i));
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> a.size() == 10 && b.size() == 10 && billing.size() >= 10);
        assertEquals(10, Set.copyOf(billing).size());
    }
}
