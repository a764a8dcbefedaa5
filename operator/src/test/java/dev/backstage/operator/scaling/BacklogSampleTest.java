package dev.backstage.operator.scaling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.spi.BacklogReport;
import dev.backstage.runtime.spi.BacklogUnavailableException;
import dev.backstage.runtime.spi.QueueBacklog;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class BacklogSampleTest {
    private static final Instant AT = Instant.parse("2025-01-01T00:00:00Z");

    @Test
    void givenAProviderReport_whenSampled_thenQueuesAreSummedAndNotesKept() {
        BacklogReport report = new BacklogReport(AT, List.of(
                new QueueBacklog("orders", 100, 7, 2, null, List.of(), null),
                new QueueBacklog("mails", 30, 3, 0, 1500L, List.of(), "lag counted from log start")));

        BacklogSample sample = BacklogSample.of(report, 4, 1000L, null);

        assertEquals(AT, sample.at());
        assertTrue(sample.available());
        assertEquals(130, sample.undelivered());
        assertEquals(10, sample.inFlight());
        assertEquals(140, sample.outstanding());
        assertEquals(4, sample.readyReplicas());
        assertEquals(1000L, sample.arrivedTotal());
        assertNull(sample.completedTotal());
        assertEquals("mails: lag counted from log start", sample.note());
    }

    @Test
    void givenAQueueWithUnknownInFlight_whenSampled_thenInFlightIsUnknownNotZero() {
        BacklogReport report = new BacklogReport(AT, List.of(
                new QueueBacklog("orders", 5, 3, 0, null, List.of(), null),
                new QueueBacklog("events", 8, -1, 0, null, List.of(), null)));

        BacklogSample sample = BacklogSample.of(report, 1);

        assertFalse(sample.inFlightKnown());
        assertEquals(BacklogSample.UNKNOWN, sample.inFlight());
        assertEquals(13, sample.outstanding());
    }

    @Test
    void givenAProbeError_whenSampled_thenUnavailableWithReasonAndNoFigures() {
        BacklogUnavailableException error =
                new BacklogUnavailableException("BrokerUnreachable", "connection refused", null);

        BacklogSample sample = BacklogSample.unavailable(AT, 3, error);

        assertFalse(sample.available());
        assertEquals("BrokerUnreachable", sample.unavailableReason());
        assertEquals("connection refused", sample.note());
        assertEquals(3, sample.readyReplicas());
        assertNull(sample.arrivedTotal());
        assertFalse(sample.inFlightKnown());
    }

    @Test
    void givenNegativeUndelivered_whenBuilt_thenRejected() {
        assertThrows(IllegalArgumentException.class, () -> BacklogSample.measured(AT, -1, 0, 1, null, null));
    }

    @Test
    void givenUnavailableWithoutReason_whenBuilt_thenRejected() {
        assertThrows(NullPointerException.class,
                () -> new BacklogSample(AT, false, 0, -1, null, null, 0, null, null, null));
    }
}
