package dev.backstage.runtime.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.core.Scheduler;
import dev.backstage.runtime.spi.schedule.CronTick;
import dev.backstage.runtime.spi.schedule.Schedule;
import dev.backstage.testsupport.PrivateRedisCluster;
import dev.backstage.testsupport.PrivateRedisSentinel;
import dev.backstage.testsupport.UniqueNames;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 23: cron ticks due during a failover fire late, never lost and never twice. Two schedulers run an
 * every-second schedule (with the replica wait on) against a private Redis Cluster or Sentinel group of this test's
 * own ({@link PrivateRedisCluster}, {@link PrivateRedisSentinel}: killing a node of the shared ones would disturb
 * other tests); the primary that owns the schedule's queue slot is killed with SIGKILL, and after it is replaced the
 * ticks are counted on the broker: each whole second from the first tick to one well after the failover has exactly
 * one claim key, each claim names the stream entry its tick enqueued (claim and job are one script,
 * {@link RedisTickClaims}), and the stream holds exactly those entries. How late the ticks due during the failover
 * fired is printed, not asserted.
 */
@Tag("broker")
@Tag("slow")
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = RedisMode.class,
        names = {"CLUSTER", "SENTINEL"})
class RedisCronFailoverTest {
    private static final String QUEUE = "ticks";
    private static final Schedule EVERY_SECOND =
            Schedule.of("every-second", "* * * * * *", "heartbeat").onQueue(QUEUE);

    private final RedisMode mode;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    RedisCronFailoverTest(RedisMode mode) {
        this.mode = mode;
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private <T extends AutoCloseable> T closeLater(T closeable) {
        closeables.add(closeable);
        return closeable;
    }

    @Test
    void givenAnEverySecondScheduleOnTwoSchedulers_whenThePrimaryOfItsQueueIsKilled_thenEachSecondIsEnqueuedOnce() {
        PrivateRedisCluster cluster = mode == RedisMode.CLUSTER ? closeLater(PrivateRedisCluster.start()) : null;
        PrivateRedisSentinel sentinel = mode == RedisMode.SENTINEL ? closeLater(PrivateRedisSentinel.start()) : null;
        RedisTestSupport redis = closeLater(new RedisTestSupport(
                mode, cluster != null ? cluster.url() : sentinel.url(), UniqueNames.prefix("bscron")));
        String stream = redis.keys().stream(QUEUE);
        RedisSettings settings = redis.settings().withReplicaWait(1, Duration.ofSeconds(1));

        List<Scheduler> schedulers = new ArrayList<>();
        Instant started = null;
        for (int i = 0; i < 2; i++) {
            RedisProvider provider = closeLater(RedisProvider.connect(settings));
            schedulers.add(closeLater(Scheduler.builder()
                            .provider(provider)
                            .schedule(EVERY_SECOND)
                            .build())
                    .start());
            started = started == null ? Instant.now() : started; // every tick after it is the first scheduler's
        }
        Instant first = started.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
        await("three ticks enqueued")
                .atMost(Duration.ofSeconds(30))
                .until(() -> redis.redis().xlen(stream) >= 3);

        int victim = cluster != null
                ? RedisNodes.clusterPrimaryOf(stream, cluster.ports().get(0))
                : sentinel.primary();
        List<Integer> others = new ArrayList<>(cluster != null ? cluster.ports() : sentinel.dataPorts());
        others.remove(Integer.valueOf(victim));
        if (cluster != null) {
            cluster.kill9(victim);
        } else {
            sentinel.kill9(victim);
        }
        Instant killed = Instant.now();
        int promoted;
        Instant failedOver;
        if (cluster != null) {
            await("a replica promoted")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> RedisNodes.clusterPrimaryOf(stream, others.get(0)) != victim);
            promoted = RedisNodes.clusterPrimaryOf(stream, others.get(0));
            failedOver = Instant.now();
            cluster.restart(victim); // rejoins as the new primary's replica: WAIT 1 can be met on the shard again
        } else {
            await("a replica promoted")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> sentinel.primary() != victim);
            promoted = sentinel.primary();
            failedOver = Instant.now();
            sentinel.restart(victim);
        }

        // The end: a tick 5 s after the failover was seen, so that the ticks due during it had their turn.
        Instant last = failedOver.truncatedTo(ChronoUnit.SECONDS).plusSeconds(5);
        String lastClaim = redis.keys().tickClaim(QUEUE, CronTick.dedupeKey(EVERY_SECOND, last));
        await("the tick of " + last + " enqueued")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> redis.redis().get(lastClaim) != null);
        schedulers.forEach(Scheduler::close);

        // The broker's own state: the stream's entries, and per whole second the claim and the job it names.
        Map<String, Long> enqueuedAt = new HashMap<>();
        for (StreamMessage<String, String> entry : redis.redis().xrange(stream, Range.create("-", "+"))) {
            enqueuedAt.put(entry.getId(), Long.parseLong(entry.getBody().get("enqueuedAt")));
        }
        Map<Instant, String> jobOfTick = new TreeMap<>();
        for (Instant tick = first; !tick.isAfter(last); tick = tick.plusSeconds(1)) {
            String job = redis.redis().get(redis.keys().tickClaim(QUEUE, CronTick.dedupeKey(EVERY_SECOND, tick)));
            assertNotNull(
                    job,
                    "tick " + tick + " has no claim: lost (killed " + killed + ", failed over " + failedOver + ")");
            assertTrue(enqueuedAt.containsKey(job), "tick " + tick + " claims job " + job + ", not in " + stream);
            jobOfTick.put(tick, job);
        }
        long ticks = Duration.between(first, last).toSeconds() + 1;
        assertEquals(ticks, jobOfTick.values().stream().distinct().count(), "one job per tick: " + jobOfTick);
        // Ticks just before `first` (a scheduler built within the second) and after `last` (before the schedulers
        // stopped) may have fired too: their jobs count as well, and none may have a second one.
        for (int k = 1; k <= 3 + enqueuedAt.size() - ticks; k++) {
            for (Instant tick : List.of(first.minusSeconds(k), last.plusSeconds(k))) {
                String job = redis.redis().get(redis.keys().tickClaim(QUEUE, CronTick.dedupeKey(EVERY_SECOND, tick)));
                if (job != null) {
                    jobOfTick.put(tick, job);
                }
            }
        }
        assertEquals(
                jobOfTick.size(), jobOfTick.values().stream().distinct().count(), "one job per tick: " + jobOfTick);
        assertEquals(
                enqueuedAt.keySet(),
                new java.util.HashSet<>(jobOfTick.values()),
                "every entry in the stream is the job of exactly one tick");
        long missed = schedulers.stream()
                .mapToLong(s -> s.stats(EVERY_SECOND.name()).missed())
                .sum();
        assertEquals(0, missed, "ticks passed over by the schedulers");

        long dueDuring = jobOfTick.keySet().stream()
                .filter(t -> t.isAfter(killed) && t.isBefore(failedOver))
                .count();
        long maxLateMs = jobOfTick.entrySet().stream()
                .mapToLong(e -> enqueuedAt.get(e.getValue()) - e.getKey().toEpochMilli())
                .max()
                .orElse(-1);
        System.out.printf(
                "cron failover (%s, waitReplicas=1): 2 schedulers, '* * * * * *' from %s to %s: %d ticks,"
                        + " %d jobs in the stream, each tick once; killed primary :%d, new primary :%d after %d ms; %d ticks due"
                        + " during the failover, latest fired %d ms after its tick; load %s%n",
                mode.label(),
                first,
                last,
                ticks,
                enqueuedAt.size(),
                victim,
                promoted,
                Duration.between(killed, failedOver).toMillis(),
                dueDuring,
                maxLateMs,
                load());
    }

    private static String load() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg"))
                    .split(" ")[0];
        } catch (java.io.IOException e) {
            return "?";
        }
    }
}
