package dev.backstage.operator.pool;

import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.operator.model.Conditions;
import dev.backstage.runtime.config.Durations;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Objects;

/**
 * A pool's {@code status.heartbeatTime}: the reconciler writes it with every status write, and on its own at least
 * every {@link #interval()} while nothing else changes. Nothing else refreshes it, so a heartbeat older than two
 * intervals says that no operator reconciles the pool (all replicas down, or none holds the Lease): the rest of
 * the status is stale. {@code kubectl get bwp} shows its age in the HEARTBEAT column.
 *
 * <p>Cost: one status write per pool per interval while nothing changes (1,000 pools at the default 2 minutes:
 * about 8 writes a second).
 */
public final class StatusHeartbeat {
    public static final String ENV = "BACKSTAGE_STATUS_HEARTBEAT";
    public static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(2);
    private static final Duration SHORTEST = Duration.ofSeconds(5);

    private final Duration interval;
    private final Clock clock;

    public StatusHeartbeat(Duration interval, Clock clock) {
        Objects.requireNonNull(interval, "interval");
        if (interval.compareTo(SHORTEST) < 0) {
            throw new IllegalArgumentException(ENV + " must be at least 5s, got " + interval.toSeconds() + "s");
        }
        this.interval = interval;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** From {@code BACKSTAGE_STATUS_HEARTBEAT} (a duration such as {@code 2m}); {@link #DEFAULT_INTERVAL} when unset. */
    public static StatusHeartbeat fromEnv(Map<String, String> env, Clock clock) {
        String text = env.get(ENV);
        return new StatusHeartbeat(
                Durations.parseOr(ENV, text == null || text.isBlank() ? null : text.trim(), DEFAULT_INTERVAL), clock);
    }

    public Duration interval() {
        return interval;
    }

    /** The time a status write now carries. */
    String now() {
        return Conditions.timestamp(clock.instant());
    }

    /** True when the pool's heartbeat is missing, unreadable or at least one interval old. */
    boolean due(BackstageWorkerPoolStatus status) {
        return untilDue(status).isZero();
    }

    /** How long until the pool's heartbeat is due (zero when it is due now). */
    Duration untilDue(BackstageWorkerPoolStatus status) {
        if (status == null || status.getHeartbeatTime() == null) {
            return Duration.ZERO;
        }
        try {
            Duration left = Duration.between(
                    clock.instant(), Instant.parse(status.getHeartbeatTime()).plus(interval));
            return left.isNegative() ? Duration.ZERO : left;
        } catch (DateTimeParseException e) {
            return Duration.ZERO;
        }
    }
}
