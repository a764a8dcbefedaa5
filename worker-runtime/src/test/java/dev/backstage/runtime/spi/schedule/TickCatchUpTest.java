package dev.backstage.runtime.spi.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** When a schedule gets the outage catch-up: from a failure or a slow answer until it has caught up. */
class TickCatchUpTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final Duration TURN = Duration.ofSeconds(1);
    private final Schedule everySecond = Schedule.of("s", "* * * * * *", "t");

    @Test
    void givenNoBrokerTrouble_thenTheWindowIsFiveSeconds_andAFastAnswerKeepsIt() {
        TickCatchUp catchUp = new TickCatchUp();
        assertEquals(TickPolicy.CATCH_UP, catchUp.window());
        catchUp.answered(Duration.ofMillis(3), TURN, everySecond, T0, T0.plusSeconds(4));
        assertEquals(TickPolicy.CATCH_UP, catchUp.window(), "late, but no broker trouble: the 5 s rule");
    }

    @Test
    void givenAFailure_thenTheOutageWindowHoldsUntilTheScheduleHasCaughtUp() {
        TickCatchUp catchUp = new TickCatchUp();
        catchUp.failed();
        assertEquals(TickPolicy.OUTAGE_CATCH_UP, catchUp.window());
        // The broker answers again; tick 1 fired at 8.2 s, ticks 2-8 are still due.
        catchUp.answered(Duration.ofMillis(3), TURN, everySecond, T0.plusSeconds(1), T0.plusMillis(8_200));
        assertEquals(TickPolicy.OUTAGE_CATCH_UP, catchUp.window(), "not caught up yet");
        catchUp.answered(Duration.ofMillis(3), TURN, everySecond, T0.plusSeconds(8), T0.plusMillis(8_210));
        assertEquals(TickPolicy.CATCH_UP, catchUp.window(), "tick 9 is not due yet: caught up");
    }

    @Test
    void givenAnAnswerSlowerThanATurn_thenTheOutageWindowStarts() {
        TickCatchUp catchUp = new TickCatchUp();
        catchUp.answered(Duration.ofMillis(1_500), TURN, everySecond, T0.plusSeconds(1), T0.plusMillis(2_700));
        assertEquals(TickPolicy.OUTAGE_CATCH_UP, catchUp.window());
    }

    @Test
    void givenARecordedFailure_thenItStartsWithTheOutageWindow() {
        assertEquals(TickPolicy.OUTAGE_CATCH_UP, new TickCatchUp(true).window());
    }
}
