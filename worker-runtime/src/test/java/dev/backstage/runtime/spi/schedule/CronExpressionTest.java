package dev.backstage.runtime.spi.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CronExpressionTest {
    private static final ZoneId UTC = ZoneOffset.UTC;

    private static Instant next(String cron, String after, ZoneId zone) {
        return CronExpression.parse(cron).next(Instant.parse(after), zone).orElseThrow();
    }

    @Test
    void givenTheSeedsFiveFieldSyntax_thenTheNextTickIsComputed() {
        assertEquals(Instant.parse("2026-01-01T00:05:00Z"), next("*/5 * * * *", "2026-01-01T00:03:59Z", UTC));
        assertEquals(Instant.parse("2026-01-01T00:10:00Z"), next("*/5 * * * *", "2026-01-01T00:05:00Z", UTC));
        // 9am on weekdays: 2026-01-03 is a Saturday, so Monday the 5th
        assertEquals(Instant.parse("2026-01-05T09:00:00Z"), next("0 9 * * 1-5", "2026-01-02T09:00:00Z", UTC));
        // 4:30 on Sundays, 0 and 7 both Sunday
        assertEquals(Instant.parse("2026-01-04T04:30:00Z"), next("30 4 * * 0", "2026-01-01T00:00:00Z", UTC));
        assertEquals(Instant.parse("2026-01-04T04:30:00Z"), next("30 4 * * 7", "2026-01-01T00:00:00Z", UTC));
        assertEquals(Instant.parse("2026-02-01T00:00:00Z"), next("0 0 1 * *", "2026-01-01T00:00:00Z", UTC));
    }

    @Test
    void givenDayOfMonthAndDayOfWeek_thenBothMustMatchAsInTheSeeds() {
        // Friday the 13th: the next one after 2026-01-01 is 2026-02-13 (Vixie cron would also fire on the 13th and
        // Fridays)
        assertEquals(Instant.parse("2026-02-13T00:00:00Z"), next("0 0 13 * 5", "2026-01-01T00:00:00Z", UTC));
    }

    @Test
    void givenSecondsAndNicknames_thenTheyAreAccepted() {
        assertEquals(Instant.parse("2026-01-01T00:00:15Z"), next("*/15 * * * * *", "2026-01-01T00:00:00Z", UTC));
        assertEquals(Instant.parse("2026-01-01T01:00:00Z"), next("@hourly", "2026-01-01T00:00:00Z", UTC));
        assertEquals(Instant.parse("2026-01-02T00:00:00Z"), next("@daily", "2026-01-01T00:00:00Z", UTC));
    }

    @Test
    void givenAScheduleTimeZone_thenTicksAreComputedInIt() {
        ZoneId paris = ZoneId.of("Europe/Paris");
        // 09:00 in Paris is 08:00Z in winter and 07:00Z in summer
        assertEquals(Instant.parse("2026-01-02T08:00:00Z"), next("0 9 * * *", "2026-01-01T12:00:00Z", paris));
        assertEquals(Instant.parse("2026-07-02T07:00:00Z"), next("0 9 * * *", "2026-07-01T12:00:00Z", paris));
    }

    @Test
    void givenAMoment_thenLatestIsTheTickAtOrBeforeIt() {
        CronExpression every5 = CronExpression.parse("*/5 * * * *");
        assertEquals(
                Instant.parse("2026-01-01T00:05:00Z"),
                every5.latest(Instant.parse("2026-01-01T00:05:00Z"), UTC).orElseThrow());
        assertEquals(
                Instant.parse("2026-01-01T00:05:00Z"),
                every5.latest(Instant.parse("2026-01-01T00:09:59.900Z"), UTC).orElseThrow());
    }

    @Test
    void givenInvalidExpressions_thenTheyFailWithOneLineThatSaysWhatIsAccepted() {
        for (String bad : new String[] {"61 * * * *", "* * *", "bogus", "* * * * * * * *", "", "0 25 * * *"}) {
            InvalidScheduleException e = assertThrows(InvalidScheduleException.class, () -> CronExpression.parse(bad));
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
            assertTrue(
                    e.getMessage().contains("use 5 fields 'minute hour day-of-month month day-of-week'"),
                    e.getMessage());
        }
    }

    @Test
    void givenUnknownZonesAndBadArgs_thenTheyFailWithTheFix() {
        InvalidScheduleException zone = assertThrows(
                InvalidScheduleException.class,
                () -> Schedule.of("s", "* * * * *", "Mars/Olympus", "t", null, null, null));
        assertEquals(
                "time zone 'Mars/Olympus' is unknown: use an IANA zone id such as 'UTC', 'Europe/Paris' or"
                        + " 'America/New_York'",
                zone.getMessage());
        InvalidScheduleException args = assertThrows(
                InvalidScheduleException.class, () -> Schedule.of("s", "* * * * *", null, "t", null, "[1] 2", null));
        assertTrue(args.getMessage().startsWith("schedule 's': args must be one JSON value"), args.getMessage());
        assertEquals("[]", Schedule.of("s", "* * * * *", "t").argsJson());
    }

    @Test
    void givenScheduleArgs_thenTheirNumbersAreKeptAsTheProducerWroteThem() {
        assertEquals(
                "[1e-7,2,2.50,-0.0,{\"big\":123456789012345678901234567890,\"s\":\"1e-7\"}]",
                Schedule.of("s", "* * * * *", "t")
                        .withArgs("[ 1e-7, 2, 2.50, -0.0, {\"big\": 123456789012345678901234567890,"
                                + " \"s\": \"1e-7\"} ]")
                        .argsJson(),
                "numbers as the producer wrote them");
        assertThrows(
                InvalidScheduleException.class,
                () -> Schedule.of("s", "* * * * *", "t").withArgs("[1] [2]"));
        assertThrows(
                InvalidScheduleException.class,
                () -> Schedule.of("s", "* * * * *", "t").withArgs("[1"));
    }

    @Test
    void givenAMomentWithAFractionOfASecond_thenTheNextTickIsOnTheWholeSecond() {
        CronExpression perSecond = CronExpression.parse("* * * * * *");
        Instant t = Instant.parse("2026-01-01T00:00:00.400Z");
        assertEquals(Optional.of(Instant.parse("2026-01-01T00:00:01Z")), perSecond.next(t, ZoneOffset.UTC));
        assertEquals(
                Optional.of(Instant.parse("2026-01-01T00:00:02Z")),
                perSecond.next(Instant.parse("2026-01-01T00:00:01Z"), ZoneOffset.UTC));
    }
}
