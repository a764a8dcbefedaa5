package dev.backstage.operator.autoscaler;

import dev.backstage.operator.model.BacklogStatus;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.operator.model.Conditions;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * The pool's {@code BacklogStalled} condition: {@code True} (reason {@code NoProgress}) when jobs wait undelivered,
 * none is in flight and the outstanding count has not moved for {@link #STALL_POLLS} polls while the pool has ready
 * replicas: the workers are idle beside a backlog (a silent stall, e.g. a worker left on an old partition set).
 * {@code False} (reason {@code Progressing}) otherwise. One per monitor; used on the monitor's thread only.
 */
final class StallDetector {
    public static final String TYPE = "BacklogStalled";
    static final String NO_PROGRESS = "NoProgress";
    static final String PROGRESSING = "Progressing";
    /** Polls of idle workers beside an unmoving backlog before the condition says so (1 minute at the 5 s default). */
    static final int STALL_POLLS = 12;

    private Long outstanding;
    private Instant since;

    /** Sets the condition on {@code pool}'s status (with its figures just measured) as of {@code now}. */
    void apply(BackstageWorkerPool pool, Duration pollInterval, Instant now) {
        BackstageWorkerPoolStatus status = pool.getStatus();
        BacklogStatus backlog = status.getBacklog();
        int ready = status.getReadyReplicas() == null ? 0 : status.getReadyReplicas();
        boolean idleBesideBacklog = backlog != null
                && backlog.getUndelivered() != null
                && backlog.getUndelivered() > 0
                && (backlog.getInFlight() == null || backlog.getInFlight() == 0)
                && ready > 0;
        if (!idleBesideBacklog || !Objects.equals(outstanding, backlog.getOutstanding())) {
            outstanding = idleBesideBacklog ? backlog.getOutstanding() : null;
            since = idleBesideBacklog ? now : null;
        }
        Long generation = pool.getMetadata().getGeneration();
        if (since != null && !since.plus(pollInterval.multipliedBy(STALL_POLLS)).isAfter(now)) {
            Conditions.set(
                    status.getConditions(),
                    TYPE,
                    Conditions.TRUE,
                    NO_PROGRESS,
                    backlog.getUndelivered()
                            + " jobs wait undelivered and none is in flight since " + Conditions.timestamp(since)
                            + ", with "
                            + ready
                            + " ready replicas: the workers do not read the queues (see their logs; with Kafka, the"
                            + " partitions they are assigned)",
                    generation,
                    now);
        } else {
            Conditions.set(
                    status.getConditions(),
                    TYPE,
                    Conditions.FALSE,
                    PROGRESSING,
                    "the backlog moves, or the workers are busy or absent",
                    generation,
                    now);
        }
    }
}
