package dev.backstage.operator.scaling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class SampleHistoryTest {
    private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");

    private static BacklogSample at(long seconds) {
        return BacklogSample.measured(T0.plusSeconds(seconds), seconds, 0, 1, null, null);
    }

    @Test
    void givenSamplesOlderThanRetention_whenAppending_thenTheyAreDropped() {
        SampleHistory history = SampleHistory.empty();
        for (long t = 0; t <= 200; t += 5) {
            history = history.append(at(t), Duration.ofSeconds(120));
        }

        assertEquals(T0.plusSeconds(80), history.get(0).at());
        assertEquals(T0.plusSeconds(200), history.latest().at());
        assertEquals(25, history.size());
    }

    @Test
    void givenTheDefaultPolicy_whenKeepingItsRetention_thenAWholeScaleDownWindowIsAlwaysObserved() {
        ScalingPolicy policy = ScalingPolicy.builder().build();
        SampleHistory history = SampleHistory.empty();
        for (long t = 0; t <= 600; t += 5) {
            history = history.append(at(t), policy.historyRetention());
        }

        Instant windowStart = history.latest().at().minus(policy.scaleDownWindow());
        assertTrue(
                !history.get(0).at().isAfter(windowStart),
                "oldest " + history.get(0).at());
    }

    @Test
    void givenASampleFromBeforeTheLatest_whenAppending_thenTheHistoryRestartsFromIt() {
        SampleHistory history = SampleHistory.of(List.of(at(0), at(5), at(10)));

        SampleHistory after = history.append(at(3), Duration.ofSeconds(120));

        assertEquals(1, after.size());
        assertEquals(T0.plusSeconds(3), after.latest().at());
    }

    @Test
    void givenOutOfOrderSamples_whenBuilt_thenRejected() {
        assertThrows(IllegalArgumentException.class, () -> SampleHistory.of(List.of(at(5), at(0))));
    }

    @Test
    void givenAnEmptyHistory_thenLatestIsNull() {
        assertNull(SampleHistory.empty().latest());
        assertTrue(SampleHistory.empty().isEmpty());
        BacklogSample only = at(1);
        assertSame(
                only, SampleHistory.empty().append(only, Duration.ofSeconds(1)).latest());
    }
}
