package dev.backstage.operator.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class PoolHistoryTest {
    private static PoolSample at(long t) {
        return new PoolSample(t, t * 10, t, (int) t, (int) t - 1, t * 2);
    }

    @Test
    void givenFewerSamplesThanCapacity_whenRead_thenAllComeBackOldestFirst() {
        PoolHistory history = new PoolHistory(5);
        history.add(at(1));
        history.add(at(2));
        history.add(at(3));
        assertEquals(List.of(at(1), at(2), at(3)), history.samples());
    }

    @Test
    void givenMoreSamplesThanCapacity_whenRead_thenOnlyTheNewestRemainInOrder() {
        PoolHistory history = new PoolHistory(3);
        for (long t = 1; t <= 7; t++) {
            history.add(at(t));
        }
        assertEquals(List.of(at(5), at(6), at(7)), history.samples());
        assertEquals(3, history.capacity());
    }

    @Test
    void givenTheDefaultCapacity_whenSized_thenOneHourCostsUnderFifteenKibPerPool() {
        assertEquals(40, PoolHistory.BYTES_PER_SAMPLE);
        assertEquals(360 * 40 + 96, PoolHistory.bytesFor(360));
        assertEquals(14_496_000L, 1000 * PoolHistory.bytesFor(360));
    }

    @Test
    void givenACapacityBelowOne_whenCreated_thenItIsRefusedWithTheValue() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new PoolHistory(0));
        assertEquals("history capacity must be at least 1, got 0", e.getMessage());
    }
}
