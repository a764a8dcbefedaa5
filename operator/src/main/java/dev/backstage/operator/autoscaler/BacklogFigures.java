package dev.backstage.operator.autoscaler;

import dev.backstage.operator.model.BacklogStatus;
import dev.backstage.operator.model.Conditions;
import dev.backstage.operator.model.DeadLetterStatus;
import dev.backstage.operator.model.PartitionBacklogStatus;
import dev.backstage.operator.model.QueueBacklogStatus;
import dev.backstage.operator.model.QueueDeadLetterStatus;
import dev.backstage.runtime.spi.BacklogReport;
import dev.backstage.runtime.spi.QueueBacklog;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * A probe's report as the pool's status figures: backlog (totals, per queue, per Kafka partition) and dead
 * letters (total, per queue).
 *
 * <p>The oldest job is written as the time it was enqueued, not as an age: an age grows on every poll and would
 * rewrite status each time; the enqueue time stays put while the same job is the oldest. Whole seconds, as
 * Kubernetes writes times. Probes report an age against their own clock reading, a few milliseconds off the
 * report's time, so the derived second can tick over between two polls of the same job: a time less than two
 * seconds from the previous one keeps the previous text (the field is exact to a second or two).
 */
public record BacklogFigures(BacklogStatus backlog, DeadLetterStatus deadLetters) {
    /** The previous text is truncated to the second, so the same job can read up to 2 s after it. */
    private static final Duration SAME_JOB = Duration.ofSeconds(2);

    public static BacklogFigures of(BacklogReport report) {
        return of(report, null);
    }

    /** @param previous the backlog now in status (its oldest times are kept when they still hold), or null */
    public static BacklogFigures of(BacklogReport report, BacklogStatus previous) {
        List<QueueBacklogStatus> queues = report.queues().stream()
                .map(q -> queue(q, report.measuredAt(), previousOldest(previous, q.queue())))
                .toList();
        String oldest = queues.stream()
                .map(QueueBacklogStatus::getOldestEnqueuedAt)
                .filter(t -> t != null)
                .min(String::compareTo)
                .orElse(null);
        BacklogStatus backlog = new BacklogStatus(report.undelivered(), inFlight(report), report.outstanding(), queues);
        backlog.setOldestEnqueuedAt(oldest);
        List<QueueDeadLetterStatus> dead = report.queues().stream()
                .map(q -> new QueueDeadLetterStatus(q.queue(), q.deadLetters()))
                .toList();
        return new BacklogFigures(backlog, new DeadLetterStatus(report.deadLetters(), dead));
    }

    /** Absent (not 0) when a queue's broker cannot tell what is in flight. */
    private static Long inFlight(BacklogReport report) {
        boolean known = report.queues().stream().allMatch(q -> q.inFlight() >= 0);
        return known ? report.inFlight() : null;
    }

    private static QueueBacklogStatus queue(QueueBacklog q, Instant measuredAt, String previousOldest) {
        QueueBacklogStatus status = new QueueBacklogStatus(
                q.queue(), q.undelivered(), q.inFlight() >= 0 ? q.inFlight() : null, q.outstanding());
        if (q.oldestAgeMs() != null) {
            Instant oldest = measuredAt.minusMillis(q.oldestAgeMs());
            status.setOldestEnqueuedAt(
                    sameSecond(previousOldest, oldest) ? previousOldest : Conditions.timestamp(oldest));
        }
        if (!q.partitions().isEmpty()) {
            status.setPartitions(q.partitions().stream()
                    .map(p -> new PartitionBacklogStatus(
                            p.partition(),
                            p.lag(),
                            p.endOffset(),
                            p.committedOffset() >= 0 ? p.committedOffset() : null))
                    .toList());
        }
        status.setNote(q.note());
        return status;
    }

    private static String previousOldest(BacklogStatus previous, String queue) {
        if (previous == null || previous.getQueues() == null) {
            return null;
        }
        return previous.getQueues().stream()
                .filter(q -> queue.equals(q.getQueue()))
                .findFirst()
                .map(QueueBacklogStatus::getOldestEnqueuedAt)
                .orElse(null);
    }

    private static boolean sameSecond(String previous, Instant oldest) {
        if (previous == null) {
            return false;
        }
        try {
            return Duration.between(Instant.parse(previous), oldest).abs().compareTo(SAME_JOB) < 0;
        } catch (DateTimeParseException e) {
            return false;
        }
    }
}
