package dev.backstage.operator.scaling;

import dev.backstage.runtime.spi.BacklogReport;
import dev.backstage.runtime.spi.BacklogUnavailableException;
import dev.backstage.runtime.spi.QueueBacklog;
import java.time.Instant;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * One backlog poll of a pool, as the autoscaler sees it. Build it with {@link #of} from the provider's
 * {@link BacklogReport}, or with {@link #unavailable} when the probe threw; a missing figure is never a 0.
 *
 * @param at                when it was measured (the decider's clock: the newest sample's time is "now")
 * @param available         false when the broker could not be read; then the counts are meaningless
 * @param undelivered       jobs waiting, not yet handed to any consumer (Kafka: the lag, which also holds
 *                          records being processed but not yet committed)
 * @param inFlight          jobs handed out and not yet settled; {@code -1} when the broker cannot tell
 * @param arrivedTotal      cumulative count of jobs ever enqueued (stream entries-added, sum of Kafka end
 *                          offsets, ...), {@code null} if unknown. A counter, so only differences matter
 * @param completedTotal    cumulative count of jobs settled (acked or dead-lettered), {@code null} if unknown.
 *                          One of the two counters is enough: the other follows from the change in
 *                          outstanding work ({@link RateEstimator})
 * @param readyReplicas     replicas ready when measured; turns completions into a per-replica rate
 * @param askedReplicas     replicas the pool was asked to run when measured (the Deployment's desired count before
 *                          this poll's decision), {@code null} if unknown. A change between two samples is a scale
 *                          event, which is how the decider rate-limits down-moves without keeping state
 * @param unavailableReason short machine word when not available (e.g. {@code BrokerUnreachable})
 * @param note              how a figure was obtained when not exact (e.g. "lag counted from log start"), or
 *                          the error message when not available; {@code null} when there is nothing to say
 */
public record BacklogSample(
        Instant at,
        boolean available,
        long undelivered,
        long inFlight,
        Long arrivedTotal,
        Long completedTotal,
        int readyReplicas,
        String unavailableReason,
        String note,
        Integer askedReplicas) {

    public static final long UNKNOWN = -1;

    public BacklogSample {
        Objects.requireNonNull(at, "at");
        if (readyReplicas < 0) {
            throw new IllegalArgumentException("readyReplicas must be >= 0, got " + readyReplicas);
        }
        if (available) {
            if (undelivered < 0) {
                throw new IllegalArgumentException("undelivered must be >= 0, got " + undelivered);
            }
            if (inFlight < UNKNOWN) {
                throw new IllegalArgumentException("inFlight must be >= 0 or -1 (unknown), got " + inFlight);
            }
            unavailableReason = null;
        } else {
            Objects.requireNonNull(unavailableReason, "unavailableReason");
            undelivered = 0;
            inFlight = UNKNOWN;
            arrivedTotal = null;
            completedTotal = null;
        }
    }

    /**
     * From a provider report. Per-queue notes are kept (joined) so the decision's reason can say, e.g., that
     * a group with no committed offset had its whole log counted.
     *
     * @param arrivedTotal   cumulative enqueued count if the operator can read one, else {@code null}
     * @param completedTotal cumulative settled count if the operator can read one, else {@code null}
     */
    public static BacklogSample of(BacklogReport report, int readyReplicas, Long arrivedTotal, Long completedTotal) {
        boolean inFlightKnown = report.queues().stream().allMatch(q -> q.inFlight() >= 0);
        String notes = report.queues().stream()
                .filter(q -> q.note() != null && !q.note().isBlank())
                .map(q -> q.queue() + ": " + q.note())
                .distinct()
                .collect(Collectors.joining("; "));
        return new BacklogSample(
                report.measuredAt(),
                true,
                report.undelivered(),
                inFlightKnown ? report.inFlight() : UNKNOWN,
                arrivedTotal,
                completedTotal,
                readyReplicas,
                null,
                notes.isEmpty() ? null : notes,
                null);
    }

    /**
     * With the report's own cumulative counters, summed over the queues only when every queue has one (a partial
     * sum would read as a rate jump when a queue's counter appears). Kafka's arrivals are the sum of its
     * partitions' end offsets, its completions the sum of their committed positions ({@code end offset - lag}: the
     * group commits only past settled records; a partition without a commit counts from where its lag is
     * counted), so records being processed are neither. A report without counters gives a sample without them:
     * enough for the backlog-per-replica target, not for the drain target or arrival sizing.
     */
    public static BacklogSample of(BacklogReport report, int readyReplicas) {
        return of(report, readyReplicas, arrivedTotal(report), completedTotal(report));
    }

    private static Long arrivedTotal(BacklogReport report) {
        long sum = 0;
        for (QueueBacklog queue : report.queues()) {
            if (queue.enqueuedTotal() != null) {
                sum += queue.enqueuedTotal();
            } else if (!queue.partitions().isEmpty()) {
                sum += queue.partitions().stream()
                        .mapToLong(QueueBacklog.PartitionBacklog::endOffset)
                        .sum();
            } else {
                return null;
            }
        }
        return report.queues().isEmpty() ? null : sum;
    }

    private static Long completedTotal(BacklogReport report) {
        long sum = 0;
        for (QueueBacklog queue : report.queues()) {
            if (queue.completedTotal() != null) {
                sum += queue.completedTotal();
            } else if (!queue.partitions().isEmpty()) {
                sum += queue.partitions().stream()
                        .mapToLong(p -> p.endOffset() - p.lag())
                        .sum();
            } else {
                return null;
            }
        }
        return report.queues().isEmpty() ? null : sum;
    }

    public static BacklogSample unavailable(Instant at, int readyReplicas, BacklogUnavailableException error) {
        return unavailable(at, readyReplicas, error.reason(), error.getMessage());
    }

    public static BacklogSample unavailable(Instant at, int readyReplicas, String reason, String message) {
        return new BacklogSample(at, false, 0, UNKNOWN, null, null, readyReplicas, reason, message, null);
    }

    /** A plain measurement, mostly for tests and the simulator. */
    public static BacklogSample measured(
            Instant at, long undelivered, long inFlight, int readyReplicas, Long arrivedTotal, Long completedTotal) {
        return new BacklogSample(
                at, true, undelivered, inFlight, arrivedTotal, completedTotal, readyReplicas, null, null, null);
    }

    /** This sample, noting that the pool was asked to run {@code replicas} when it was measured. */
    public BacklogSample withAskedReplicas(Integer replicas) {
        return new BacklogSample(
                at,
                available,
                undelivered,
                inFlight,
                arrivedTotal,
                completedTotal,
                readyReplicas,
                unavailableReason,
                note,
                replicas);
    }

    public boolean inFlightKnown() {
        return inFlight >= 0;
    }

    /** Undelivered + in flight; an unknown in-flight figure counts as 0 here (see {@link #inFlightKnown}). */
    public long outstanding() {
        return undelivered + Math.max(0, inFlight);
    }

    /** Short form for reasons, e.g. "120 outstanding (100 undelivered + 20 in flight)". */
    String describeOutstanding() {
        String inFlightText = inFlightKnown() ? inFlight + " in flight" : "in flight unknown";
        return outstanding() + " outstanding (" + undelivered + " undelivered + " + inFlightText + ")";
    }
}
