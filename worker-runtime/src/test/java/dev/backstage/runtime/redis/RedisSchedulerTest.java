package dev.backstage.runtime.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.CronPayload;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.core.Scheduler;
import dev.backstage.runtime.spi.schedule.CronTick;
import dev.backstage.runtime.spi.schedule.Schedule;
import dev.backstage.testsupport.SharedBroker;
import dev.backstage.testsupport.SimulatedClock;
import dev.backstage.testsupport.UsesSharedBrokers;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Cron schedules on the real Redis, in each connection mode: every tick enqueued once across schedulers (counted on
 * the stream), the cron entry against docs/wire-format.md's golden record, and the missed-tick policy across a scheduler restart.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
@UsesSharedBrokers({SharedBroker.REDIS_CLUSTER, SharedBroker.REDIS_SENTINEL})
@Tag("broker")
class RedisSchedulerTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00.500Z");

    private final RedisTestSupport redis;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final ExecutorService threads = Executors.newFixedThreadPool(2);

    RedisSchedulerTest(RedisMode mode) {
        this.redis = new RedisTestSupport(mode);
    }

    @AfterEach
    void tearDown() throws Exception {
        threads.shutdownNow();
        for (AutoCloseable c : closeables) {
            c.close();
        }
        redis.close();
    }

    private Scheduler scheduler(SimulatedClock clock, Schedule schedule) {
        RedisProvider provider = redis.provider();
        closeables.add(provider);
        Scheduler scheduler = Scheduler.builder()
                .provider(provider)
                .clock(clock)
                .schedule(schedule)
                .build();
        closeables.add(scheduler);
        return scheduler;
    }

    private long streamLength(String queue) {
        return redis.redis().xlen(redis.keys().stream(queue));
    }

    @Test
    void givenTwoSchedulersOnASimulatedClock_thenEachTickIsEnqueuedExactlyOnce() throws Exception {
        SimulatedClock clock = new SimulatedClock(T0);
        Schedule everyMinute =
                Schedule.of("every-minute", "* * * * *", "report.build").onQueue("reports");
        Scheduler a = scheduler(clock, everyMinute);
        Scheduler b = scheduler(clock, everyMinute);

        // 30 simulated minutes in 7 s steps; at every step both schedulers run at once on their own threads.
        Instant end = T0.plus(Duration.ofMinutes(30));
        while (clock.instant().isBefore(end)) {
            clock.advance(Duration.ofSeconds(7));
            List<Future<List<CronTick.Outcome>>> turns =
                    threads.invokeAll(List.<Callable<List<CronTick.Outcome>>>of(a::runDue, b::runDue));
            for (Future<List<CronTick.Outcome>> turn : turns) {
                turn.get();
            }
        }
        long expected = 30; // 00:01 … 00:30 (the clock ends at 00:30:04.5)
        long enqueued = streamLength("reports");
        Scheduler.Stats sa = a.stats("every-minute");
        Scheduler.Stats sb = b.stats("every-minute");
        System.out.printf(
                "two schedulers, 30 simulated minutes of '* * * * *': ticks expected %d, jobs enqueued %d"
                        + " (XLEN); scheduler A fired %d and found %d already fired, B fired %d and found %d%n",
                expected, enqueued, sa.fired(), sa.alreadyFired(), sb.fired(), sb.alreadyFired());
        assertEquals(expected, enqueued);
        assertEquals(expected, sa.fired() + sb.fired());
        assertEquals(expected, sa.alreadyFired() + sb.alreadyFired(), "each tick was also tried by the other one");
        long claims = redis.redis()
                .keys(redis.keys().tickClaim("reports", "cron:every-minute:*"))
                .size();
        assertEquals(expected, claims, "one claim key per tick");
    }

    @Test
    void givenTwoStartedSchedulersOnTheRealClock_thenOneJobIsEnqueuedPerClaimedTick() {
        Schedule everySecond = Schedule.of("every-second", "* * * * * *", "heartbeat");
        List<Scheduler> schedulers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            RedisProvider provider = redis.provider();
            closeables.add(provider);
            Scheduler scheduler =
                    Scheduler.builder().provider(provider).schedule(everySecond).build();
            closeables.add(scheduler);
            schedulers.add(scheduler.start());
        }
        await("four ticks").atMost(Duration.ofSeconds(30)).until(() -> streamLength("default") >= 4);
        schedulers.forEach(Scheduler::close);
        long jobs = streamLength("default");
        long claims = redis.redis()
                .keys(redis.keys().tickClaim("default", "cron:every-second:*"))
                .size();
        long fired = schedulers.stream()
                .mapToLong(s -> s.stats("every-second").fired())
                .sum();
        System.out.printf(
                "two started schedulers, '* * * * * *' on the real clock: ticks claimed %d, jobs enqueued %d,"
                        + " fired %d%n",
                claims, jobs, fired);
        assertEquals(claims, jobs, "one job per claimed tick");
        assertEquals(jobs, fired);
    }

    @Test
    void givenASchedule_thenTheCronEntryIsTheSeedsRecord_andItsClaimTheWireKey() {
        SimulatedClock clock = new SimulatedClock(Instant.parse("2026-01-01T01:59:59Z"));
        Schedule nightly = Schedule.of(
                "nightly-report",
                "0 2 * * *",
                "UTC",
                "report.build",
                "reports",
                "[{\"full\":true}]",
                Duration.ofMinutes(5));
        Scheduler scheduler = scheduler(clock, nightly);
        clock.set(Instant.parse("2026-01-01T02:00:01Z"));
        List<CronTick.Outcome> fired = scheduler.runDue();
        assertEquals(1, fired.size());

        StreamMessage<String, String> entry = redis.redis()
                .xrange(redis.keys().stream("reports"), Range.create("-", "+"))
                .get(0);
        String record = entry.getBody().entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(" "));
        System.out.println("golden cron record: XADD " + redis.keys().stream("reports") + " * " + record);
        // docs/wire-format.md: taskName, payload = {"taskName":…,"args":[…]}, enqueuedAt, in the TS order.
        assertEquals(
                "taskName=report.build payload={\"taskName\":\"report.build\",\"args\":[{\"full\":true}]}"
                        + " enqueuedAt=1767232801000",
                record);
        String claim = redis.keys().tickClaim("reports", "cron:nightly-report:")
                + Instant.parse("2026-01-01T02:00:00Z").toEpochMilli();
        assertEquals(entry.getId(), redis.redis().get(claim), "the claim names the job its tick enqueued");
        long ttl = redis.redis().ttl(claim);
        System.out.println("claim key: " + claim + " TTL " + ttl + " s");
        assertTrue(ttl > 3600 && ttl <= 3900, "starting deadline 5 min + 1 h, got " + ttl);
    }

    @Test
    void givenJavaAndSeedCronEntries_thenAJavaWorkerRunsThemAsCronPayload() {
        RedisProvider provider = redis.provider();
        closeables.add(provider);
        Worker worker = Worker.builder().provider(provider).queues("reports").build();
        closeables.add(worker);
        List<String> seen = new CopyOnWriteArrayList<>();
        worker.register("report.build", CronPayload.class, (ctx, cron) -> {
            seen.add(cron.taskName() + " " + cron.args());
            return Next.done();
        });
        worker.start();
        SimulatedClock clock = new SimulatedClock(Instant.parse("2026-01-01T01:59:59Z"));
        Scheduler scheduler = scheduler(
                clock,
                Schedule.of("nightly", "0 2 * * *", "UTC", "report.build", "reports", "[{\"full\":true}]", null));
        clock.set(Instant.parse("2026-01-01T02:00:00Z"));
        scheduler.runDue();
        // What the TS seed scheduler writes (docs/wire-format.md), and the Go seed's {} payload.
        redis.redis()
                .xadd(
                        redis.keys().stream("reports"),
                        "taskName",
                        "report.build",
                        "payload",
                        "{\"taskName\":\"report.build\",\"args\":[]}",
                        "enqueuedAt",
                        "1718900000000");
        redis.redis()
                .xadd(
                        redis.keys().stream("reports"),
                        "taskName",
                        "report.build",
                        "payload",
                        "{}",
                        "enqueuedAt",
                        "1718900000000");
        await().atMost(Duration.ofSeconds(20)).until(() -> seen.size() == 3);
        assertTrue(
                seen.containsAll(List.of("report.build [{\"full\":true}]", "report.build []", "null null")),
                seen.toString());
    }

    @Test
    void givenARestartedScheduler_thenItFiresOnlyTheLatestMissedTickWithinTheDeadline() {
        Schedule everyMinute = Schedule.of("restart", "* * * * *", "t").withStartingDeadline(Duration.ofSeconds(30));
        SimulatedClock clock = new SimulatedClock(Instant.parse("2026-01-01T00:00:10Z"));
        Scheduler first = scheduler(clock, everyMinute);
        for (int minute = 1; minute <= 5; minute++) {
            clock.set(Instant.parse("2026-01-01T00:00:10Z").plus(Duration.ofMinutes(minute)));
            first.runDue();
        }
        assertEquals(5, streamLength("default"));
        // Down from 00:05:10 to 00:15:20: ticks 00:06 … 00:15 came and went. The new scheduler fires 00:15 only.
        clock.set(Instant.parse("2026-01-01T00:15:20Z"));
        Scheduler restarted = scheduler(clock, everyMinute);
        restarted.runDue();
        assertEquals(6, streamLength("default"), "one storm-free catch-up tick");
        assertEquals(1, restarted.stats("restart").fired());
        // A scheduler paused for 10 minutes while running skips to the latest tick and counts the others.
        clock.set(Instant.parse("2026-01-01T00:25:10Z"));
        restarted.runDue();
        assertEquals(7, streamLength("default"));
        assertEquals(9, restarted.stats("restart").missed(), "00:16 … 00:24 missed, 00:25 fired");
        // Past the deadline: nothing is fired, the tick counts as missed.
        clock.set(Instant.parse("2026-01-01T00:27:45Z"));
        restarted.runDue();
        assertEquals(7, streamLength("default"));
        assertEquals(11, restarted.stats("restart").missed(), "00:26 and 00:27 (45 s late, deadline 30 s) missed");
    }
}
