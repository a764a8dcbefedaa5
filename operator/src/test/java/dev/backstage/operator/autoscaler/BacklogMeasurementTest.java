package dev.backstage.operator.autoscaler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.backstage.operator.scaling.BacklogSample;
import dev.backstage.runtime.spi.BacklogReport;
import dev.backstage.runtime.spi.QueueBacklog;
import dev.backstage.runtime.spi.QueueBacklog.PartitionBacklog;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class BacklogMeasurementTest {
    private static final Instant AT = Instant.parse("2025-03-01T10:00:00Z");

    private static BacklogSample sample(QueueBacklog... queues) {
        return BacklogMeasurement.measured(new BacklogReport(AT, List.of(queues)), "redis").toSample(3);
    }

    @Test
    void givenCountersOnEveryQueue_thenTheSampleCarriesTheirSums() {
        BacklogSample sample = sample(new QueueBacklog("a", 5, 1, 0, null, List.of(), null, 100L, 94L),
                new QueueBacklog("b", 0, 0, 0, null, List.of(), null, 20L, 20L));
        assertEquals(120L, sample.arrivedTotal());
        assertEquals(114L, sample.completedTotal());
        assertEquals(6, sample.outstanding());
        assertEquals(3, sample.readyReplicas());
    }

    @Test
    void givenOneQueueWithoutACounter_thenTheSumIsUnknown_notPartial() {
        BacklogSample sample = sample(new QueueBacklog("a", 5, 1, 0, null, List.of(), null, 100L, 94L),
                new QueueBacklog("b", 0, 0, 0, null, List.of(), null, 20L, null));
        assertEquals(120L, sample.arrivedTotal());
        assertNull(sample.completedTotal());
        BacklogSample rabbit = sample(new QueueBacklog("a", 5, 1, 0, null, List.of(), null));
        assertNull(rabbit.arrivedTotal());
        assertNull(rabbit.completedTotal());
    }

    @Test
    void givenKafkaPartitions_thenArrivalsAreTheSumOfTheirEndOffsets_andCompletionsOfTheirCommittedPositions() {
        BacklogSample sample = sample(new QueueBacklog("events", 9, 0, 0, null,
                List.of(new PartitionBacklog(0, 10, 4, 6), new PartitionBacklog(1, 3, -1, 3)), "lag"));
        assertEquals(13L, sample.arrivedTotal());
        // end - lag: 4 committed on partition 0; partition 1 has no commit and its lag counts from offset 0
        assertEquals(4L, sample.completedTotal());
    }

    @Test
    void givenAnUnavailableMeasurement_thenTheSampleHasNoFigures() {
        BacklogSample sample = BacklogMeasurement.unavailable(AT, "BrokerUnreachable", "down").toSample(2);
        assertFalse(sample.available());
        assertEquals("BrokerUnreachable", sample.unavailableReason());
        assertEquals("down", sample.note());
    }
}
