package dev.backstage.runtime.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.backstage.runtime.spi.Backoff;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BackoffTest {
    @ParameterizedTest(
            name = "exponential 1000 ms, no cap: delivery {0} waits {1} ms (docs/wire-format.md, retry rule)")
    @CsvSource({"1,1000", "2,1000", "3,2000", "4,4000", "5,8000", "6,16000"})
    void givenExponentialBackoff_thenItMatchesTheProviderFormula(int deliveryCount, long expected) {
        assertEquals(expected, new Backoff(Backoff.Type.EXPONENTIAL, 1000, 0).delayFor(deliveryCount));
    }

    @ParameterizedTest(name = "exponential capped at 5000: delivery {0} waits {1} ms")
    @CsvSource({"3,2000", "4,4000", "5,5000", "40,5000", "100,5000"})
    void givenExponentialBackoff_thenItIsCappedByMaxDelay(int deliveryCount, long expected) {
        assertEquals(
                expected,
                Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(5))
                        .delayFor(deliveryCount));
    }

    @ParameterizedTest(name = "no positive cap means one hour: delivery {0}")
    @CsvSource({"30", "64", "1000"})
    void givenNoCap_thenTheCapIsOneHour(int deliveryCount) {
        assertEquals(3_600_000L, new Backoff(Backoff.Type.EXPONENTIAL, 1000, 0).delayFor(deliveryCount));
    }

    @ParameterizedTest(name = "fixed 500 ms at delivery {0}")
    @CsvSource({"1", "2", "10"})
    void givenFixedBackoff_thenItNeverGrows(int deliveryCount) {
        assertEquals(500, Backoff.fixed(Duration.ofMillis(500)).delayFor(deliveryCount));
    }
}
