package dev.backstage.runtime.spi;

import java.time.Instant;
import java.util.List;

/** A backlog measurement across queues, taken at one time. */
public record BacklogReport(Instant measuredAt, List<QueueBacklog> queues) {
    public BacklogReport {
        queues = List.copyOf(queues);
    }

    public long undelivered() {
        return queues.stream().mapToLong(QueueBacklog::undelivered).sum();
    }

    public long inFlight() {
        return queues.stream().mapToLong(q -> Math.max(0, q.inFlight())).sum();
    }

    public long deadLetters() {
        return queues.stream().mapToLong(QueueBacklog::deadLetters).sum();
    }

    public long outstanding() {
        return undelivered() + inFlight();
    }
}
