package dev.backstage.operator.autoscaler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BacklogMonitorTest {

    @ParameterizedTest(name = "poll {0} ms, follow-up {1} ms -> next in {2} ms")
    @CsvSource(nullValues = "-", textBlock = """
        5000, -,    5000
        5000, 1000, 1000
        500,  1000, 500
        1000, 1000, 1000
        """)
    void givenAFollowUpSoonerThanThePollInterval_thenTheNextTickComesThen(long pollMs, Long followUpMs, long nextMs) {
        assertEquals(
                Duration.ofMillis(nextMs),
                BacklogMonitor.nextDelay(
                        Duration.ofMillis(pollMs), followUpMs == null ? null : Duration.ofMillis(followUpMs)));
    }
}
