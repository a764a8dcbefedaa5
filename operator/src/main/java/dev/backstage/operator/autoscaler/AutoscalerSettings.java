package dev.backstage.operator.autoscaler;

import java.time.Duration;
import java.util.Objects;

/**
 * How the backlog monitors run; the poll interval itself is per pool ({@code spec.autoscaling.pollInterval}).
 *
 * @param threads       threads polling brokers for all pools together; a broker call that hangs holds one
 * @param statusRefresh unchanged figures are written again (with a new {@code backlogMeasuredAt}) at most this
 *                      often, so status is not rewritten on every poll yet never looks stale for long
 * @param secretRefresh how long a connection Secret read stays trusted before it is read again
 */
public record AutoscalerSettings(int threads, Duration statusRefresh, Duration secretRefresh) {
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(5);

    public AutoscalerSettings {
        Objects.requireNonNull(statusRefresh, "statusRefresh");
        Objects.requireNonNull(secretRefresh, "secretRefresh");
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        }
        if (statusRefresh.isNegative() || secretRefresh.isNegative()) {
            throw new IllegalArgumentException("refresh periods must not be negative");
        }
    }

    /** Two threads, figures refreshed every minute, Secrets re-read every minute. */
    public static AutoscalerSettings defaults() {
        return new AutoscalerSettings(2, Duration.ofSeconds(60), Duration.ofSeconds(60));
    }
}
