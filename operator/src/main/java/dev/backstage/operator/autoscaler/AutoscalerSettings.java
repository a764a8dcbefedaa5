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
 * @param reconnectDelay after a failed connection to a topology's broker, how long its pools report that failure
 *                      before the next attempt (a connection attempt builds a client and its threads)
 */
public record AutoscalerSettings(int threads, Duration statusRefresh, Duration secretRefresh, Duration reconnectDelay) {
    public AutoscalerSettings {
        Objects.requireNonNull(statusRefresh, "statusRefresh");
        Objects.requireNonNull(secretRefresh, "secretRefresh");
        Objects.requireNonNull(reconnectDelay, "reconnectDelay");
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        }
        if (statusRefresh.isNegative() || secretRefresh.isNegative() || reconnectDelay.isNegative()) {
            throw new IllegalArgumentException("refresh periods must not be negative");
        }
    }

    /**
     * Two threads, unchanged figures rewritten every 10 minutes, Secrets re-read every minute, reconnects every 5 s at
     * most. The 10 minutes: a rewrite of unchanged figures is a status PATCH (and, as the pool's copy is often stale
     * by then, a GET) per pool; once a minute that was 33 API requests/s at 1,000 idle pools
     * ({@code bin/bench operator-scale}). Nothing but a person reads {@code backlogMeasuredAt}; whether the figures
     * are being measured now is the BacklogAvailable condition's to say.
     */
    public static AutoscalerSettings defaults() {
        return new AutoscalerSettings(2, Duration.ofMinutes(10), Duration.ofSeconds(60), Duration.ofSeconds(5));
    }
}
