package dev.backstage.operator.model;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Sets and reads status conditions the Kubernetes way: one entry per type, and {@code lastTransitionTime}
 * moves only when {@code status} changes (a new reason or message alone is not a transition).
 */
public final class Conditions {
    public static final String TRUE = "True";
    public static final String FALSE = "False";
    public static final String UNKNOWN = "Unknown";

    /** The condition every Backstage resource reports. */
    public static final String READY = "Ready";

    private Conditions() {}

    /**
     * Sets condition {@code type} in {@code conditions} (a mutable list), adding it when absent.
     *
     * @param now the time to record if this is a transition
     * @return true if anything in the list changed
     */
    public static boolean set(
            List<Condition> conditions,
            String type,
            String status,
            String reason,
            String message,
            Long observedGeneration,
            Instant now) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(status, "status");
        Optional<Condition> existing = find(conditions, type);
        if (existing.isEmpty()) {
            conditions.add(new Condition(type, status, reason, message, timestamp(now), observedGeneration));
            return true;
        }
        Condition condition = existing.get();
        Condition before = copy(condition);
        if (!status.equals(condition.getStatus())) {
            condition.setLastTransitionTime(timestamp(now));
        } else if (condition.getLastTransitionTime() == null) {
            condition.setLastTransitionTime(timestamp(now));
        }
        condition.setStatus(status);
        condition.setReason(reason);
        condition.setMessage(message);
        condition.setObservedGeneration(observedGeneration);
        return !before.equals(condition);
    }

    public static Optional<Condition> find(List<Condition> conditions, String type) {
        if (conditions == null) {
            return Optional.empty();
        }
        return conditions.stream().filter(c -> type.equals(c.getType())).findFirst();
    }

    /** True only when the condition is present with status {@code True}; absent or Unknown counts as not true. */
    public static boolean isTrue(List<Condition> conditions, String type) {
        return find(conditions, type).map(c -> TRUE.equals(c.getStatus())).orElse(false);
    }

    /** RFC 3339 with whole seconds, as the API server writes {@code metav1.Time}. */
    public static String timestamp(Instant instant) {
        return instant.truncatedTo(ChronoUnit.SECONDS).toString();
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
