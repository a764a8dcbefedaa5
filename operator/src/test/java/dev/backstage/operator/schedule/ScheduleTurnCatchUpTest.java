package dev.backstage.operator.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.model.ScheduleSpec;
import dev.backstage.operator.model.ScheduleStatus;
import dev.backstage.runtime.spi.schedule.CronTick;
import dev.backstage.runtime.spi.schedule.Schedule;
import dev.backstage.testsupport.SimulatedClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Which ticks the operator's schedule turn fires after its broker failed, on a simulated clock and a simulated broker
 * (a claim per tick, as {@link CronTick} takes it): the runtime Scheduler's rule ({@code TickCatchUp}). The ticks that
 * came due during an outage of up to a minute each fire once, oldest first, when the broker answers again; a longer
 * outage, or late ticks with no broker failure (a paused operator), fire only the latest.
 */
class ScheduleTurnCatchUpTest {
    private static final Instant T0 = Instant.parse("2026-03-01T00:00:00Z");
    private static final Duration TURN = ScheduleFiring.PERIOD;

    private final SimulatedClock clock = new SimulatedClock(T0);
    private final ScheduleSpec spec = everySecond();
    private final Schedule schedule = ScheduleSpecs.toSchedule(spec);
    private final Broker broker = new Broker();
    private final List<ScheduleTurn.Notice> notices = new ArrayList<>();
    private ScheduleStatus status = firedThrough(T0);

    /** The topology's broker as the turn sees it: one claim per tick, down or up, and optionally slow. */
    private final class Broker implements ScheduleTurn.Firing {
        final Set<Instant> claimed = new HashSet<>();
        final List<Instant> fired = new ArrayList<>();
        final List<Instant> attempts = new ArrayList<>();
        boolean down;
        Duration nextCallTakes = Duration.ZERO;

        @Override
        public CronTick.Outcome fire(Schedule s, Instant tick) {
            attempts.add(tick);
            clock.advance(nextCallTakes);
            nextCallTakes = Duration.ZERO;
            if (down) {
                throw new IllegalStateException("Connection refused: 127.0.0.1:7000");
            }
            if (!claimed.add(tick)) {
                return new CronTick.Outcome(tick, null, true);
            }
            fired.add(tick);
            return new CronTick.Outcome(tick, "job-" + fired.size(), false);
        }
    }

    private static ScheduleSpec everySecond() {
        ScheduleSpec spec = new ScheduleSpec();
        spec.setName("heartbeat");
        spec.setSchedule("* * * * * *");
        spec.setTask("heartbeat");
        spec.setQueue("orders");
        return spec;
    }

    private static ScheduleStatus firedThrough(Instant tick) {
        ScheduleStatus status = new ScheduleStatus("heartbeat");
        status.setLastFiredTick(tick.toString());
        return status;
    }

    /** One turn at {@code at}, as the firing runs it every second. */
    private void turnAt(Instant at) {
        clock.set(at);
        ScheduleTurn.Result result = ScheduleTurn.run(spec, schedule, status, clock, TURN, broker);
        status = result.status();
        notices.addAll(result.notices());
    }

    private static List<Instant> seconds(int from, int to) {
        return IntStream.rangeClosed(from, to).mapToObj(T0::plusSeconds).toList();
    }

    private long missed() {
        return status.getMissedTicks() == null ? 0 : status.getMissedTicks();
    }

    @Test
    void givenABrokerDownForEightSeconds_whenItAnswersAgain_thenEveryTickDueMeanwhileFiresOnceOldestFirst() {
        turnAt(T0.plusMillis(1_200));
        broker.down = true;
        for (int s = 2; s <= 9; s++) {
            turnAt(T0.plusSeconds(s).plusMillis(200));
        }
        assertEquals(seconds(1, 1), broker.fired, "nothing fired while the broker was down");
        assertEquals(List.of(T0.plusSeconds(1)), broker.attempts.subList(0, 1));
        assertTrue(
                broker.attempts.subList(1, broker.attempts.size()).stream().allMatch(T0.plusSeconds(2)::equals),
                "each turn tried the oldest due tick again: " + broker.attempts);
        assertNotNull(status.getLastError(), "the failure is recorded");

        broker.down = false;
        turnAt(T0.plusSeconds(10).plusMillis(200));

        assertEquals(seconds(1, 10), broker.fired, "ticks 2-10 fired in one turn, oldest first, once each");
        assertEquals(0, missed());
        assertNull(status.getLastError());
        assertEquals(T0.plusSeconds(10).toString(), status.getLastFiredTick());
        assertTrue(notices.stream().noneMatch(n -> n.reason().equals(ScheduleTurn.TICKS_MISSED)), notices.toString());

        turnAt(T0.plusSeconds(11).plusMillis(200));
        assertEquals(seconds(1, 11), broker.fired, "caught up: the next turn fires its one tick");
    }

    @Test
    void givenACallThatTakesEightSeconds_thenTheTicksDueDuringItFireInTheSameTurnOldestFirst() {
        // A failover the client rode out: no error, but the claim and publish answered 8 s later.
        broker.nextCallTakes = Duration.ofSeconds(8);
        turnAt(T0.plusMillis(1_200));

        assertEquals(seconds(1, 9), broker.fired);
        assertEquals(0, missed());
    }

    @Test
    void givenABrokerDownForSeventySeconds_whenItAnswersAgain_thenOnlyTheLatestTickFiresAndTheRestAreCountedMissed() {
        broker.down = true;
        turnAt(T0.plusMillis(1_200));
        broker.down = false;
        turnAt(T0.plusSeconds(70).plusMillis(200));

        assertEquals(List.of(T0.plusSeconds(70)), broker.fired, "past the 60 s outage catch-up: the latest only");
        assertEquals(69, missed());
        assertTrue(notices.stream().anyMatch(n -> n.reason().equals(ScheduleTurn.TICKS_MISSED)), notices.toString());
    }

    @Test
    void givenTicksEightSecondsLateWithoutABrokerFailure_thenOnlyTheLatestFires() {
        // The operator did not turn for 8 s (a pause, a new leader) but the broker never failed: the 5 s rule.
        turnAt(T0.plusSeconds(8).plusMillis(200));

        assertEquals(List.of(T0.plusSeconds(8)), broker.fired);
        assertEquals(7, missed());
    }

    @Test
    void givenATickAnotherOperatorFiredDuringTheOutage_thenItIsRecordedAndNotEnqueuedAgain() {
        broker.down = true;
        turnAt(T0.plusMillis(1_200));
        broker.claimed.add(T0.plusSeconds(3)); // the old leader fired tick 3 while this one could not reach Redis
        broker.down = false;
        turnAt(T0.plusSeconds(6).plusMillis(200));

        assertEquals(
                List.of(T0.plusSeconds(1), T0.plusSeconds(2), T0.plusSeconds(4), T0.plusSeconds(5), T0.plusSeconds(6)),
                broker.fired);
        assertEquals(seconds(1, 6), broker.attempts.subList(1, broker.attempts.size()), "each tick claimed once");
        assertEquals(0, missed());
    }
}
