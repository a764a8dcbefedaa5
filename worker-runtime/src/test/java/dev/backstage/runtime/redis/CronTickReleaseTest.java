package dev.backstage.runtime.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.spi.JobsCapability;
import dev.backstage.runtime.spi.schedule.CronTick;
import dev.backstage.runtime.spi.schedule.Schedule;
import dev.backstage.testsupport.SharedBroker;
import dev.backstage.testsupport.UsesSharedBrokers;
import java.time.Clock;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A tick whose job cannot be enqueued after its claim gives the claim back (DEL of the dedupe key on Redis), so
 * the next attempt — here or on another scheduler — fires it: the tick is neither lost nor fired twice. In each
 * connection mode (one node, the 6-node cluster, the Sentinel group).
 */
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
@UsesSharedBrokers({SharedBroker.REDIS_CLUSTER, SharedBroker.REDIS_SENTINEL})
@Tag("broker")
class CronTickReleaseTest {
    private final RedisTestSupport redis;
    private final RedisProvider provider;

    CronTickReleaseTest(RedisMode mode) {
        this.redis = new RedisTestSupport(mode);
        this.provider = redis.provider();
    }

    @AfterEach
    void close() {
        provider.close();
        redis.close();
    }

    @Test
    void givenAPublishThatFailsAfterTheClaim_thenTheClaimIsGivenBackAndTheNextAttemptFiresTheTickOnce() {
        Schedule schedule = Schedule.of("nightly", "0 2 * * *", "report.build").onQueue("reports");
        Instant tick = Instant.parse("2026-12-01T02:00:00Z");
        String key = redis.keys().dedupe(CronTick.dedupeKey(schedule, tick));
        JobsCapability jobs = provider.jobs();
        JobsCapability down = new JobsCapability() {
            @Override
            public String publish(dev.backstage.runtime.spi.OutgoingJob job) {
                throw new IllegalStateException("broker unreachable");
            }

            @Override
            public dev.backstage.runtime.spi.JobConsumer consume(
                    dev.backstage.runtime.spi.ConsumerSettings settings, dev.backstage.runtime.spi.DeliverySink sink) {
                throw new UnsupportedOperationException();
            }

            @Override
            public java.util.List<String> defaultQueues() {
                return jobs.defaultQueues();
            }
        };

        CronTick.NotPublishedException failed = assertThrows(
                CronTick.NotPublishedException.class,
                () -> CronTick.fire(schedule, tick, provider.dedupe().orElseThrow(), down, Clock.systemUTC()));
        assertTrue(failed.getMessage().contains("broker unreachable"), failed.getMessage());
        assertEquals(0, redis.redis().exists(key), "the claim was given back");

        CronTick.Outcome fired =
                CronTick.fire(schedule, tick, provider.dedupe().orElseThrow(), jobs, Clock.systemUTC());
        CronTick.Outcome again =
                CronTick.fire(schedule, tick, provider.dedupe().orElseThrow(), jobs, Clock.systemUTC());

        assertFalse(fired.alreadyFired());
        assertTrue(again.alreadyFired(), "a second scheduler finds the tick claimed");
        assertEquals(1, redis.redis().xlen(redis.keys().stream("reports")), "one job on the queue's stream");
    }
}
