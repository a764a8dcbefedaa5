package dev.backstage.runtime.spi.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The missed-tick policy of Kubernetes CronJob's startingDeadlineSeconds. */
class TickPolicyTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void givenAMomentBeforeTheNextTick_thenNothingIsDue() {
        Schedule every = Schedule.of("s", "* * * * *", "t");
        TickDecision d = TickPolicy.decide(every, T0, T0.plusSeconds(59));
        assertEquals(Optional.empty(), d.fire());
        assertEquals(0, d.missed());
        assertEquals(Optional.of(T0.plusSeconds(60)), d.next());
    }

    @Test
    void givenOneDueTick_thenItFires() {
        Schedule every = Schedule.of("s", "* * * * *", "t");
        TickDecision d = TickPolicy.decide(every, T0, T0.plusSeconds(61));
        assertEquals(Optional.of(T0.plusSeconds(60)), d.fire());
        assertEquals(0, d.missed());
        assertEquals(T0.plusSeconds(60), d.handledThrough());
    }

    @Test
    void givenASlowTurnThatLetsTwoPerSecondTicksComeDue_thenBothFireOldestFirst() {
        Schedule perSecond = Schedule.of("s", "* * * * * *", "t");
        TickDecision first = TickPolicy.decide(perSecond, T0, T0.plusMillis(2_300));
        assertEquals(Optional.of(T0.plusSeconds(1)), first.fire());
        assertEquals(0, first.missed());
        TickDecision second = TickPolicy.decide(perSecond, first.handledThrough(), T0.plusMillis(2_301));
        assertEquals(Optional.of(T0.plusSeconds(2)), second.fire());
        assertEquals(0, second.missed());
    }

    @Test
    void givenABrokerOutageOf40s_whenTheOutageCatchUpApplies_thenEachLateTickFiresOldestFirst() {
        Schedule perSecond = Schedule.of("s", "* * * * * *", "t");
        Instant now = T0.plusSeconds(41);
        TickDecision normal = TickPolicy.decide(perSecond, T0, now);
        assertEquals(Optional.of(T0.plusSeconds(41)), normal.fire(), "a scheduler that was away: the latest only");
        assertEquals(40, normal.missed());
        TickDecision outage = TickPolicy.decide(perSecond, T0, now, TickPolicy.OUTAGE_CATCH_UP);
        assertEquals(Optional.of(T0.plusSeconds(1)), outage.fire(), "the oldest first");
        assertEquals(0, outage.missed());
    }

    @Test
    void givenABrokerOutageLongerThanTheOutageCatchUp_thenOnlyTheLatestTickFires() {
        Schedule perSecond = Schedule.of("s", "* * * * * *", "t");
        Instant now = T0.plus(TickPolicy.OUTAGE_CATCH_UP).plusSeconds(2);
        TickDecision d = TickPolicy.decide(perSecond, T0, now, TickPolicy.OUTAGE_CATCH_UP);
        assertEquals(Optional.of(now), d.fire());
        assertEquals(TickPolicy.OUTAGE_CATCH_UP.toSeconds() + 1, d.missed());
    }

    @Test
    void givenDowntime_thenOnlyTheLatestTickFires_andTheOthersAreCountedMissed() {
        Schedule every = Schedule.of("s", "* * * * *", "t");
        TickDecision d =
                TickPolicy.decide(every, T0, T0.plus(Duration.ofMinutes(10)).plusSeconds(5));
        assertEquals(Optional.of(T0.plus(Duration.ofMinutes(10))), d.fire());
        assertEquals(9, d.missed());
    }

    @Test
    void givenALatestTickPastTheStartingDeadline_thenItIsSkippedAndCounted() {
        Schedule every = Schedule.of("s", "* * * * *", "t").withStartingDeadline(Duration.ofSeconds(30));
        TickDecision d =
                TickPolicy.decide(every, T0, T0.plus(Duration.ofMinutes(10)).plusSeconds(45));
        assertEquals(Optional.empty(), d.fire());
        assertEquals(10, d.missed());
        assertEquals(Optional.of(T0.plus(Duration.ofMinutes(10))), d.tooLate());
        assertEquals(T0.plus(Duration.ofMinutes(10)), d.handledThrough());
    }

    @Test
    void givenALatestTickWithinTheStartingDeadline_thenItFires() {
        Schedule every = Schedule.of("s", "* * * * *", "t").withStartingDeadline(Duration.ofSeconds(30));
        TickDecision d =
                TickPolicy.decide(every, T0, T0.plus(Duration.ofMinutes(10)).plusSeconds(20));
        assertEquals(Optional.of(T0.plus(Duration.ofMinutes(10))), d.fire());
        assertEquals(9, d.missed());
    }

    @Test
    void givenAStatelessStart_thenItFiresTheLatestTickWithinTheDeadlineOnly() {
        Schedule every = Schedule.of("s", "* * * * *", "t").withStartingDeadline(Duration.ofSeconds(30));
        Instant now = T0.plusSeconds(20);
        TickDecision d = TickPolicy.decide(every, TickPolicy.startBoundary(every, now), now);
        assertEquals(Optional.of(T0), d.fire());
        Schedule noDeadline = Schedule.of("s", "* * * * *", "t");
        assertEquals(
                Optional.empty(),
                TickPolicy.decide(noDeadline, TickPolicy.startBoundary(noDeadline, now), now)
                        .fire());
    }

    @Test
    void givenASchedule_thenItsDedupeKeyPayloadAndClaimTtlAreTheWireFormat() {
        Schedule nightly = Schedule.of(
                "nightly-report",
                "0 2 * * *",
                "Europe/Paris",
                "report.build",
                "reports",
                "[{\"full\": true}]",
                Duration.ofMinutes(5));
        assertEquals(
                "cron:nightly-report:1767229200000",
                CronTick.dedupeKey(nightly, Instant.parse("2026-01-01T01:00:00Z")));
        assertEquals("{\"taskName\":\"report.build\",\"args\":[{\"full\":true}]}", CronTick.payloadJson(nightly));
        assertEquals(Duration.ofMinutes(65), CronTick.claimTtl(nightly));
    }
}
