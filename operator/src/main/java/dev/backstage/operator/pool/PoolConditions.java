package dev.backstage.operator.pool;

import dev.backstage.operator.events.EventRecorder;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.operator.model.Condition;
import dev.backstage.operator.model.Conditions;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The conditions the pool reconciler owns, {@code Ready} and {@code Scaling}, as the list it applies: each keeps its
 * transition time while its status holds, and a new Ready reason is told through an Event. The autoscaler's
 * conditions are not in the list (server-side apply keeps each condition's owner).
 */
final class PoolConditions {
    static final Set<String> OWNED = Set.of(Conditions.READY, PoolScaling.TYPE);

    private final EventRecorder events;
    private final Clock clock;

    PoolConditions(EventRecorder events, Clock clock) {
        this.events = Objects.requireNonNull(events, "events");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Ready from {@code readiness}; Scaling from {@code scaling}, or as it stands when empty (a failed reconcile). */
    List<Condition> owned(BackstageWorkerPool pool, PoolReadiness readiness, Optional<PoolScaling> scaling) {
        List<Condition> conditions = new ArrayList<>(current(pool).stream()
                .filter(c -> OWNED.contains(c.getType()))
                .map(c -> new Condition(
                        c.getType(),
                        c.getStatus(),
                        c.getReason(),
                        c.getMessage(),
                        c.getLastTransitionTime(),
                        c.getObservedGeneration()))
                .toList());
        setReady(pool, conditions, readiness);
        scaling.ifPresent(s -> Conditions.set(
                conditions,
                PoolScaling.TYPE,
                s.status(),
                s.reason(),
                s.message(),
                pool.getMetadata().getGeneration(),
                clock.instant()));
        return conditions;
    }

    /** True when an owned condition in {@code owned} differs from the pool's. */
    static boolean changed(BackstageWorkerPool pool, List<Condition> owned) {
        return OWNED.stream()
                .anyMatch(type -> !Conditions.find(current(pool), type).equals(Conditions.find(owned, type)));
    }

    private static List<Condition> current(BackstageWorkerPool pool) {
        BackstageWorkerPoolStatus status = pool.getStatus();
        return status == null || status.getConditions() == null ? List.of() : status.getConditions();
    }

    /** Sets Ready and tells the user, through an Event, when it changes to a new reason. */
    private void setReady(BackstageWorkerPool pool, List<Condition> conditions, PoolReadiness readiness) {
        Optional<String> previousReason =
                Conditions.find(conditions, Conditions.READY).map(Condition::getReason);
        Conditions.set(
                conditions,
                Conditions.READY,
                readiness.status(),
                readiness.reason(),
                readiness.message(),
                pool.getMetadata().getGeneration(),
                clock.instant());
        boolean newReason = !previousReason.equals(Optional.of(readiness.reason()));
        if (newReason && !PoolReadiness.RECONCILE_FAILED.equals(readiness.reason())) {
            if (readiness.ready()) {
                events.normal(pool, "PoolReady", readiness.message());
            } else if (readiness.reason().startsWith("Topology")) {
                events.warning(pool, readiness.reason(), readiness.message());
            }
        }
    }
}
