package dev.backstage.operator.autoscaler;

import com.fasterxml.jackson.databind.JsonNode;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.operator.model.Condition;
import dev.backstage.operator.model.Conditions;
import dev.backstage.operator.scaling.ScalingDecision;
import dev.backstage.operator.scaling.ScalingLimit;
import dev.backstage.operator.scaling.ScalingPolicy;
import dev.backstage.operator.status.StatusFields;
import dev.backstage.runtime.config.Durations;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Writes one poll's outcome into a pool's status: the fields the autoscaler owns, and only those (backlog,
 * deadLetters, backlogMeasuredAt, desiredReplicas while autoscaling is on, lastScaleTime, lastScaleReason, and the
 * BacklogAvailable and ScalingLimited conditions). Pure: the caller decides whether the result is worth a write.
 *
 * <p>Figures are written when they change, and unchanged ones again once {@code statusRefresh} has passed, so
 * {@code backlogMeasuredAt} stays honest without a write per poll. A poll that could not read the broker leaves
 * the last good figures and their time in place and says why in BacklogAvailable: never a silent 0.
 */
public final class AutoscalerStatus {
    public static final String BACKLOG_AVAILABLE = "BacklogAvailable";
    public static final String SCALING_LIMITED = "ScalingLimited";
    /** BacklogAvailable=True. */
    public static final String MEASURED = "Measured";
    /**
     * The backlog monitor's status fields: these, plus {@code measuredPodStartupTime} and the BacklogStalled
     * condition it sets beside them, and no other. {@code desiredReplicas} is the reconciler's while autoscaling is
     * off (it then writes {@code spec.replicas} there) and this writer's while it is on.
     */
    public static final StatusFields OWNED = new StatusFields(
            Set.of(
                    "backlog",
                    "deadLetters",
                    "backlogMeasuredAt",
                    "desiredReplicas",
                    "lastScaleTime",
                    "lastScaleReason",
                    "measuredPodStartupTime"),
            Set.of(BACKLOG_AVAILABLE, SCALING_LIMITED, StallDetector.TYPE));

    private AutoscalerStatus() {}

    /**
     * What changed, for Events.
     *
     * @param scaledFrom       the desired count before, when this poll changed it, else {@code null}
     * @param scaledTo         the new desired count, else {@code null}
     * @param scaleReason      the decision's reason when it scaled
     * @param backlogBefore    BacklogAvailable before this poll, {@code null} when the pool had none
     * @param backlogAfter     BacklogAvailable after this poll
     */
    public record Outcome(
            Integer scaledFrom, Integer scaledTo, String scaleReason, Condition backlogBefore, Condition backlogAfter) {
        public boolean scaled() {
            return scaledTo != null;
        }

        /** BacklogAvailable's status or reason changed (a new message alone is not news). */
        public boolean backlogChanged() {
            return backlogBefore == null
                    || !Objects.equals(backlogBefore.getStatus(), backlogAfter.getStatus())
                    || !Objects.equals(backlogBefore.getReason(), backlogAfter.getReason());
        }
    }

    /**
     * @param pool          a copy of the pool to change in place (its status is created when absent)
     * @param measurement   this poll's measurement
     * @param policy        the pool's policy while autoscaling is on, else {@code null}
     * @param decision      the decision from {@code policy} while autoscaling is on, else {@code null}
     * @param pollInterval  the pool's poll interval, for the condition message
     * @param statusRefresh rewrite unchanged figures after this long
     * @param now           the time of this poll
     */
    public static Outcome apply(
            BackstageWorkerPool pool,
            BacklogMeasurement measurement,
            ScalingPolicy policy,
            ScalingDecision decision,
            Duration pollInterval,
            Duration statusRefresh,
            Instant now) {
        if (pool.getStatus() == null) {
            pool.setStatus(new BackstageWorkerPoolStatus());
        }
        BackstageWorkerPoolStatus status = pool.getStatus();
        if (status.getConditions() == null) {
            status.setConditions(new java.util.ArrayList<>());
        }
        Long generation = pool.getMetadata().getGeneration();
        Optional<Condition> backlogBefore =
                Conditions.find(status.getConditions(), BACKLOG_AVAILABLE).map(AutoscalerStatus::copy);

        if (measurement.available()) {
            BacklogFigures figures = BacklogFigures.of(measurement.report(), status.getBacklog());
            boolean changed = !json(figures.backlog()).equals(json(status.getBacklog()))
                    || !json(figures.deadLetters()).equals(json(status.getDeadLetters()));
            if (changed || stale(status.getBacklogMeasuredAt(), statusRefresh, now)) {
                status.setBacklog(figures.backlog());
                status.setDeadLetters(figures.deadLetters());
                status.setBacklogMeasuredAt(Conditions.timestamp(measurement.at()));
            }
            Conditions.set(
                    status.getConditions(),
                    BACKLOG_AVAILABLE,
                    Conditions.TRUE,
                    MEASURED,
                    "measured every " + Durations.format(pollInterval) + " through the " + measurement.provider()
                            + " provider's backlog probe",
                    generation,
                    now);
        } else {
            String kept = status.getBacklogMeasuredAt() == null
                    ? "no figures measured yet"
                    : "backlog and deadLetters keep the last good figures, measured at "
                            + status.getBacklogMeasuredAt();
            Conditions.set(
                    status.getConditions(),
                    BACKLOG_AVAILABLE,
                    Conditions.FALSE,
                    measurement.reason(),
                    measurement.message() + "; " + kept + "; " + unavailableReplicas(pool),
                    generation,
                    now);
        }

        Integer scaledFrom = null;
        Integer scaledTo = null;
        String scaleReason = null;
        if (decision != null) {
            if (decision.changesReplicas()) {
                scaledFrom = decision.currentReplicas();
                scaledTo = decision.desiredReplicas();
                scaleReason = decision.reason();
                status.setDesiredReplicas(decision.desiredReplicas());
                status.setLastScaleTime(Conditions.timestamp(now));
                status.setLastScaleReason(decision.reason());
            } else if (status.getDesiredReplicas() == null) {
                // The first decision keeps the count: say so, since desiredReplicas is this writer's alone while
                // autoscaling is on (`kubectl get bwp` shows DESIRED from it).
                status.setDesiredReplicas(decision.desiredReplicas());
            }
            Conditions.set(
                    status.getConditions(),
                    SCALING_LIMITED,
                    decision.limited() ? Conditions.TRUE : Conditions.FALSE,
                    decision.limitedBy().conditionReason(),
                    limitMessage(decision.limitedBy(), policy),
                    generation,
                    now);
        } else {
            status.getConditions().removeIf(c -> SCALING_LIMITED.equals(c.getType()));
        }

        Condition backlogAfter =
                copy(Conditions.find(status.getConditions(), BACKLOG_AVAILABLE).orElseThrow());
        return new Outcome(scaledFrom, scaledTo, scaleReason, backlogBefore.orElse(null), backlogAfter);
    }

    private static String unavailableReplicas(BackstageWorkerPool pool) {
        var autoscaling = pool.getSpec() == null ? null : pool.getSpec().getAutoscaling();
        return autoscaling != null
                        && autoscaling.isOn()
                        && autoscaling.getFallbackReplicas() != null
                        && !ScalingControls.paused(pool)
                ? "replicas go to spec.autoscaling.fallbackReplicas (" + autoscaling.getFallbackReplicas() + ")"
                : "replicas are held";
    }

    /** Stable wording (no figures), so the condition does not change on every poll. */
    static String limitMessage(ScalingLimit limit, ScalingPolicy policy) {
        return switch (limit) {
            case NONE -> "the backlog's need is within [minReplicas, maxReplicas]";
            case MAX_REPLICAS -> "the backlog asks for more than maxReplicas (" + policy.maxReplicas() + ")";
            case PARTITIONS ->
                "the backlog asks for more replicas than the queues' topics have partitions (" + policy.partitionCap()
                        + "); more would sit idle";
            case MIN_REPLICAS -> "the backlog asks for fewer than minReplicas (" + policy.minReplicas() + ")";
        };
    }

    private static boolean stale(String measuredAt, Duration refresh, Instant now) {
        if (measuredAt == null) {
            return true;
        }
        try {
            return !Instant.parse(measuredAt).plus(refresh).isAfter(now);
        } catch (DateTimeParseException e) {
            return true; // not ours to keep: someone wrote a malformed time
        }
    }

    private static JsonNode json(Object value) {
        return Serialization.jsonMapper().valueToTree(value);
    }

    private static Condition copy(Condition c) {
        return new Condition(
                c.getType(),
                c.getStatus(),
                c.getReason(),
                c.getMessage(),
                c.getLastTransitionTime(),
                c.getObservedGeneration());
    }
}
