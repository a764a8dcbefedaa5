package dev.backstage.operator.scaling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.spi.BacklogReport;
import dev.backstage.runtime.spi.BacklogUnavailableException;
import dev.backstage.runtime.spi.QueueBacklog;
import dev.backstage.runtime.spi.QueueBacklog.PartitionBacklog;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class BacklogSampleTest {
    private static final Instant AT = Instant.parse("2025-01-01T00:00:00Z");

    @Test
    void givenAProviderReport_whenSampled_thenQueuesAreSummedAndNotesKept() {
        BacklogReport report = new BacklogReport(
                AT,
                List.of(
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
        BacklogReport report = new BacklogReport(
                AT,
                List.of(
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
        assertThrows(
                NullPointerException.class, () -> new BacklogSample(AT, false, 0, -1, null, null, 0, null, null, null));
    }

    private static BacklogSample sample(QueueBacklog... queues) {
        return BacklogSample.of(new BacklogReport(AT, List.of(queues)), 3);
    }

    @Test
    void givenCountersOnEveryQueue_thenTheSampleCarriesTheirSums() {
        BacklogSample sample = sample(
                new QueueBacklog("a", 5, 1, 0, null, List.of(), null, 100L, 94L),
                new QueueBacklog("b", 0, 0, 0, null, List.of(), null, 20L, 20L));
        assertEquals(120L, sample.arrivedTotal());
        assertEquals(114L, sample.completedTotal());
        assertEquals(6, sample.outstanding());
        assertEquals(3, sample.readyReplicas());
    }

    @Test
    void givenOneQueueWithoutACounter_thenTheSumIsUnknown_notPartial() {
        BacklogSample sample = sample(
                new QueueBacklog("a", 5, 1, 0, null, List.of(), null, 100L, 94L),
                new QueueBacklog("b", 0, 0, 0, null, List.of(), null, 20L, null));
        assertEquals(120L, sample.arrivedTotal());
        assertNull(sample.completedTotal());
        BacklogSample rabbit = sample(new QueueBacklog("a", 5, 1, 0, null, List.of(), null));
        assertNull(rabbit.arrivedTotal());
        assertNull(rabbit.completedTotal());
    }

    @Test
    void givenKafkaPartitions_thenArrivalsAreTheSumOfTheirEndOffsets_andCompletionsOfTheirCommittedPositions() {
        BacklogSample sample = sample(new QueueBacklog(
                "events",
                9,
                0,
                0,
                null,
                List.of(new PartitionBacklog(0, 10, 4, 6), new PartitionBacklog(1, 3, -1, 3)),
                "lag"));
        assertEquals(13L, sample.arrivedTotal());
        // end - lag: 4 committed on partition 0; partition 1 has no commit and its lag counts from offset 0
        assertEquals(4L, sample.completedTotal());
    }
}
