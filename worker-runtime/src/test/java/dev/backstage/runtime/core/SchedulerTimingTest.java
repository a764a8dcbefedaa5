package dev.backstage.runtime.core;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.backstage.runtime.redis.RedisProvider;
import dev.backstage.runtime.redis.RedisTestSupport;
import dev.backstage.runtime.spi.schedule.Schedule;
import dev.backstage.testsupport.SimulatedClock;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * When the scheduler wakes and what it fires, on the real Redis: the next wake-up comes from the schedule (the
 * tick after the last one handled), never from "now plus a period", and a turn that runs late never costs a tick.
 */
@Tag("broker")
class SchedulerTimingTest {
    private static final Instant T0 = Instant.parse("2026-03-01T00:00:00Z");
    private final RedisTestSupport redis = new RedisTestSupport();
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
        redis.close();
    }

    private Scheduler scheduler(java.time.Clock clock, Schedule schedule) {
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

    @Test
    void givenTurnsThatRunLate_thenEveryPerSecondTickIsEnqueuedOnceAndNoneIsSkipped() {
        SimulatedClock clock = new SimulatedClock(T0);
        Scheduler scheduler = scheduler(
                clock, Schedule.of("per-second", "* * * * * *", "tick").onQueue("ticks"));
        // 120 simulated seconds in turns of 1.3 s: each turn finds one or two ticks due.
        while (clock.instant().isBefore(T0.plusSeconds(120))) {
            clock.advance(Duration.ofMillis(1_300));
            while (!scheduler.runDue().isEmpty()) {
                // a tick that is still due gets another turn at once, as the loop does
            }
        }
        long expected = Duration.between(T0, clock.instant()).toSeconds(); // ticks 00:00:01 … 00:02:00
        Scheduler.Stats stats = scheduler.stats("per-second");
        System.out.printf(
                "per-second schedule, turns every 1.3 s: ticks due %d, fired %d, missed %d, XLEN %d%n",
                expected, stats.fired(), stats.missed(), redis.redis().xlen(redis.prefix() + ":ticks"));
        assertEquals(0, stats.missed());
        assertEquals(expected, stats.fired());
        assertEquals(expected, redis.redis().xlen(redis.prefix() + ":ticks"));
    }

    @Test
    void givenATickJustFired_thenTheNextWakeIsTheSchedulesNextBoundaryNotNowPlusAPeriod() {
        SimulatedClock clock = new SimulatedClock(T0.plusMillis(400));
        Scheduler scheduler = scheduler(
                clock, Schedule.of("per-second", "* * * * * *", "tick").onQueue("ticks"));
        assertEquals(T0.plusSeconds(1), scheduler.nextWake(clock.instant()));
        clock.set(T0.plusMillis(1_950)); // the turn for 00:00:01 runs 950 ms late
        assertEquals(1, scheduler.runDue().size());
        assertEquals(T0.plusSeconds(2), scheduler.nextWake(clock.instant()), "the next boundary, 50 ms away");
        clock.set(T0.plusMillis(2_001));
        assertEquals(T0.plusSeconds(2), scheduler.nextWake(clock.instant()), "a due tick is a wake-up now");
        assertEquals(1, scheduler.runDue().size());
        assertEquals(T0.plusSeconds(3), scheduler.nextWake(clock.instant()));
    }

    /** The real clock: how late each tick reached Redis (XADD's own time minus the tick). Printed, not asserted. */
    @Test
    void givenTheRealClock_thenEachTicksLatenessIsPrinted() {
        Scheduler scheduler = scheduler(
                java.time.Clock.systemUTC(),
                Schedule.of("real-per-second", "* * * * * *", "tick").onQueue("real"));
        scheduler.start();
        String stream = redis.prefix() + ":real";
        await().atMost(Duration.ofSeconds(30)).until(() -> redis.redis().xlen(stream) >= 6);
        scheduler.close();
        List<Long> lateness = new ArrayList<>();
        for (StreamMessage<String, String> m : redis.redis().xrange(stream, Range.create("-", "+"))) {
            long added = Long.parseLong(m.getId().substring(0, m.getId().indexOf('-')));
            lateness.add(added % 1000);
        }
        double load = java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                .getSystemLoadAverage();
        System.out.printf(
                "real clock, per-second schedule: %d ticks, lateness at XADD (ms) %s; target <= 100 ms;"
                        + " load average %.1f%n",
                lateness.size(), lateness, load);
    }
}
