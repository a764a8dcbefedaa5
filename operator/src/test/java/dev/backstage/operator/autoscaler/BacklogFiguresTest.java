package dev.backstage.operator.autoscaler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.backstage.operator.model.PartitionBacklogStatus;
import dev.backstage.operator.model.QueueBacklogStatus;
import dev.backstage.runtime.spi.BacklogReport;
import dev.backstage.runtime.spi.QueueBacklog;
import dev.backstage.runtime.spi.QueueBacklog.PartitionBacklog;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class BacklogFiguresTest {
    private static final Instant AT = Instant.parse("2025-03-01T10:00:00.400Z");

    @Test
    void givenAReport_thenTotalsPerQueueDeadLettersAndTheOldestEnqueueTimeAreInStatusForm() {
        BacklogReport report = new BacklogReport(
                AT,
                List.of(
                        new QueueBacklog("orders", 10, 4, 2, 90_000L, List.of(), null),
                        new QueueBacklog("mails", 1, 0, 0, 5_000L, List.of(), "a note")));

        BacklogFigures figures = BacklogFigures.of(report);

        assertEquals(11L, figures.backlog().getUndelivered());
        assertEquals(4L, figures.backlog().getInFlight());
        assertEquals(15L, figures.backlog().getOutstanding());
        assertEquals("2025-03-01T09:58:30Z", figures.backlog().getOldestEnqueuedAt(), "the older of the two queues");
        QueueBacklogStatus orders = figures.backlog().getQueues().get(0);
        assertEquals("orders", orders.getQueue());
        assertEquals(14L, orders.getOutstanding());
        assertEquals("2025-03-01T09:58:30Z", orders.getOldestEnqueuedAt());
        assertEquals("a note", figures.backlog().getQueues().get(1).getNote());
        assertEquals(2L, figures.deadLetters().getTotal());
        assertEquals(2L, figures.deadLetters().getQueues().get(0).getCount());
        assertEquals(0L, figures.deadLetters().getQueues().get(1).getCount());
    }

    @Test
    void givenABrokerThatCannotTellWhatIsInFlight_thenInFlightIsAbsentNotZero() {
        BacklogFigures figures = BacklogFigures.of(new BacklogReport(
                AT,
                List.of(
                        new QueueBacklog("orders", 3, -1, 0, null, List.of(), "ready only"),
                        new QueueBacklog("mails", 1, 2, 0, null, List.of(), null))));
        assertNull(figures.backlog().getInFlight());
        assertNull(figures.backlog().getQueues().get(0).getInFlight());
        assertEquals(2L, figures.backlog().getQueues().get(1).getInFlight());
        assertNull(figures.backlog().getOldestEnqueuedAt());
    }

    @Test
    void givenKafkaPartitions_thenEachIsListed_andAPartitionWithoutCommitHasNoCommittedOffset() {
        BacklogFigures figures = BacklogFigures.of(new BacklogReport(
                AT,
                List.of(new QueueBacklog(
                        "events",
                        9,
                        0,
                        0,
                        null,
                        List.of(new PartitionBacklog(0, 10, 4, 6), new PartitionBacklog(1, 3, -1, 3)),
                        "lag"))));
        List<PartitionBacklogStatus> partitions =
                figures.backlog().getQueues().get(0).getPartitions();
        assertEquals(2, partitions.size());
        assertEquals(6L, partitions.get(0).getLag());
        assertEquals(10L, partitions.get(0).getEndOffset());
        assertEquals(4L, partitions.get(0).getCommittedOffset());
        assertNull(partitions.get(1).getCommittedOffset());
    }

    @Test
    void givenTheSameOldestJobMeasuredAgain_thenItsTimeDoesNotTickOverWithTheProbesClock() {
        // The probe's age is read against its own clock, a few ms off the report time: 10:00:00.999 one poll,
        // 10:00:01.003 the next, for the same job.
        BacklogReport first = new BacklogReport(AT, List.of(new QueueBacklog("q", 1, 0, 0, 0L, List.of(), null)));
        BacklogFigures before =
                BacklogFigures.of(new BacklogReport(Instant.parse("2025-03-01T10:00:00.999Z"), first.queues()));
        BacklogFigures again = BacklogFigures.of(
                new BacklogReport(Instant.parse("2025-03-01T10:00:01.003Z"), first.queues()), before.backlog());
        assertEquals("2025-03-01T10:00:00Z", before.backlog().getQueues().get(0).getOldestEnqueuedAt());
        assertEquals("2025-03-01T10:00:00Z", again.backlog().getQueues().get(0).getOldestEnqueuedAt());

        BacklogFigures newer = BacklogFigures.of(
                new BacklogReport(Instant.parse("2025-03-01T10:00:05Z"), first.queues()), before.backlog());
        assertEquals(
                "2025-03-01T10:00:05Z",
                newer.backlog().getQueues().get(0).getOldestEnqueuedAt(),
                "another job, seconds later, shows its own time");
    }
}
