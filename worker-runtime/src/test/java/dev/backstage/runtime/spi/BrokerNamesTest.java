package dev.backstage.runtime.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.spi.schedule.InvalidScheduleException;
import dev.backstage.runtime.spi.schedule.Schedule;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The shared name rules: hostile names refused with a fix-it line that is itself safe to show. */
class BrokerNamesTest {

    @Test
    void givenHostileNames_thenEachIsRefusedWithAPrintableOneLineMessage() {
        for (String name : new String[] {
            "$(rm -rf /)",
            "../../etc/passwd",
            "<script>alert(1)</script>",
            "a\nb",
            "\u202Eevil",
            "\u001B[31mred",
            "",
            " default",
            "x".repeat(100_001)
        }) {
            for (Optional<String> problem : java.util.List.of(
                    BrokerNames.queueProblem("q", name),
                    BrokerNames.groupProblem("g", name),
                    BrokerNames.prefixProblem("p", name),
                    BrokerNames.taskProblem("t", name),
                    BrokerNames.scheduleProblem("s", name))) {
                assertTrue(problem.isPresent(), name);
                String message = problem.get();
                assertTrue(message.chars().allMatch(c -> c >= 0x20 && c < 0x7f || c == '…'), message);
                assertTrue(message.length() < 400, message);
                assertTrue(message.contains("use 1-"), message);
            }
        }
    }

    @Test
    void givenAPrefixWithASeparator_thenItCannotReachIntoAnotherPrefixsQueues() {
        assertTrue(BrokerNames.prefixProblem("--prefix", "hy:a").orElseThrow().contains("no '.' or ':'"));
        assertTrue(BrokerNames.prefixProblem("--prefix", "hy.a").isPresent());
        assertTrue(
                BrokerNames.queueProblem("--queue", "dead-letter").orElseThrow().contains("is reserved"));
        assertTrue(BrokerNames.queueProblem("--queue", "a.dead-letter")
                .orElseThrow()
                .contains("is reserved"));
        assertTrue(BrokerNames.queueProblem("--queue", "topic.x").isPresent());
        ConfigurationException e = assertThrows(
                ConfigurationException.class,
                () -> new ProviderSettings("redis", "redis://127.0.0.1:6379", "hy:a", null, null));
        assertTrue(e.getMessage().startsWith("key prefix 'hy:a' is not a valid key prefix"), e.getMessage());
    }

    @Test
    void givenAPrefixInBraces_whenTheProviderIsRedis_thenItIsAccepted_andEveryOtherProviderRefusesItSayingWhy() {
        for (String braced : new String[] {"{backstage}", "{a}", "{" + "x".repeat(38) + "}"}) {
            assertEquals(Optional.empty(), BrokerNames.prefixProblem("p", braced, "redis"), braced);
            assertEquals(
                    braced,
                    new ProviderSettings("redis", "redis+cluster://127.0.0.1:7000", braced, null, null).prefix());
        }
        for (String provider : new String[] {"rabbitmq", "kafka"}) {
            ConfigurationException e = assertThrows(
                    ConfigurationException.class,
                    () -> new ProviderSettings(provider, "127.0.0.1:9092", "{backstage}", null, null));
            assertEquals(
                    "key prefix '{backstage}' is a Redis Cluster hash tag, for provider redis only: Kafka topic names"
                            + " cannot hold braces and RabbitMQ names should not; drop the braces: backstage",
                    e.getMessage());
        }
        assertTrue(BrokerNames.prefixProblem("p", "{backstage}").isPresent(), "no provider: the strict rule");
    }

    @Test
    void givenMalformedBraces_whenTheProviderIsRedis_thenTheyAreRefusedWithTheRedisRule() {
        for (String bad : new String[] {
            "{}",
            "{backstage",
            "backstage}",
            "{hy}:a",
            "{hy:a}",
            "{a.b}",
            "x{a}",
            "{{a}}",
            "{-a}",
            "{" + "x".repeat(39) + "}"
        }) {
            String problem =
                    BrokerNames.prefixProblem("--prefix", bad, "redis").orElseThrow(() -> new AssertionError(bad));
            assertTrue(problem.endsWith("or such a name in braces (a Redis Cluster hash tag), e.g. {orders}"), problem);
        }
    }

    @Test
    void givenASchedule_whenItsNameBreaksTheRule_thenScheduleRefusesItWithBrokerNamesMessage() {
        assertEquals(Optional.empty(), BrokerNames.scheduleProblem("s", "nightly-report.v2"));
        assertTrue(BrokerNames.scheduleProblem("s", "x".repeat(101)).isPresent());
        InvalidScheduleException e =
                assertThrows(InvalidScheduleException.class, () -> Schedule.of("a\nb", "@hourly", "report"));
        assertEquals(BrokerNames.scheduleProblem("schedule", "a\nb").orElseThrow(), e.getMessage());
        assertTrue(
                e.getMessage().startsWith("schedule 'a\\u000Ab' is not a valid schedule name: use 1-100"),
                e.getMessage());
    }

    @Test
    void givenOrdinaryNames_thenTheyAreAccepted() {
        assertEquals(Optional.empty(), BrokerNames.queueProblem("q", "emails.high-priority_2"));
        assertEquals(Optional.empty(), BrokerNames.groupProblem("g", "backstage-workers"));
        assertEquals(Optional.empty(), BrokerNames.prefixProblem("p", "backstage"));
        assertEquals(Optional.empty(), BrokerNames.taskProblem("t", "billing/send-invoice:v2"));
        assertFalse(BrokerNames.shown("x".repeat(500)).length() > 80);
    }
}
