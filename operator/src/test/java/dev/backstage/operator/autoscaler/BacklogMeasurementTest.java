package dev.backstage.operator.autoscaler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.backstage.operator.scaling.BacklogSample;
import dev.backstage.runtime.spi.BacklogReport;
import dev.backstage.runtime.spi.QueueBacklog;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class BacklogMeasurementTest {
    private static final Instant AT = Instant.parse("2025-03-01T10:00:00Z");

    @Test
    void givenAMeasurement_thenTheSampleCarriesTheReportsFiguresAndCounters() {
        BacklogSample sample = BacklogMeasurement.measured(
                        new BacklogReport(
                                AT, List.of(new QueueBacklog("a", 5, 1, 0, null, List.of(), null, 100L, 94L))),
                        "redis")
                .toSample(3);
        assertEquals(6, sample.outstanding());
        assertEquals(100L, sample.arrivedTotal());
        assertEquals(94L, sample.completedTotal());
        assertEquals(3, sample.readyReplicas());
    }

    @Test
    void givenAnUnavailableMeasurement_thenTheSampleHasNoFigures() {
        BacklogSample sample =
                BacklogMeasurement.unavailable(AT, "BrokerUnreachable", "down").toSample(2);
        assertFalse(sample.available());
        assertEquals("BrokerUnreachable", sample.unavailableReason());
        assertEquals("down", sample.note());
    }
}
