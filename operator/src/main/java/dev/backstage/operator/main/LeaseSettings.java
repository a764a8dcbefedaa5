package dev.backstage.operator.main;

import dev.backstage.runtime.config.Durations;
import java.time.Duration;
import java.util.Objects;

/**
 * The leader-election Lease: where it lives and its timing. The defaults (10 s lease, 7 s renew deadline, 1 s
 * retry) make a standby lead within about 12.5 s of a leader's kill -9 (the lease, plus at most 2.2 retry periods
 * of the client's jittered acquire loop, plus one API call); client-go's and controller-runtime's 15 s / 10 s / 2 s
 * take up to 19.4 s. A leader that cannot renew within the renew deadline stops leading, and it notices within one
 * retry period, so {@code renewDeadline + retryPeriod < duration} keeps it from leading beside the next holder.
 * docs/operations/high-availability.md says why these values.
 *
 * @param namespace null = the client's namespace
 */
public record LeaseSettings(
        String name, String namespace, Duration duration, Duration renewDeadline, Duration retryPeriod) {
    public static final String DEFAULT_NAME = "backstage-operator-leader";
    public static final Duration DEFAULT_DURATION = Duration.ofSeconds(10);
    public static final Duration DEFAULT_RENEW_DEADLINE = Duration.ofSeconds(7);
    public static final Duration DEFAULT_RETRY_PERIOD = Duration.ofSeconds(1);

    public LeaseSettings {
        Objects.requireNonNull(name, "name");
        if (!(retryPeriod.compareTo(renewDeadline) < 0
                && renewDeadline.plus(retryPeriod).compareTo(duration) < 0)) {
            throw new IllegalArgumentException("lease timing must satisfy retryPeriod < renewDeadline and renewDeadline"
                    + " + retryPeriod < duration (BACKSTAGE_LEASE_RETRY_PERIOD, BACKSTAGE_LEASE_RENEW_DEADLINE,"
                    + " BACKSTAGE_LEASE_DURATION; the chart's leaderElection.*), got retryPeriod "
                    + Durations.format(retryPeriod) + ", renewDeadline " + Durations.format(renewDeadline)
                    + ", duration "
                    + Durations.format(duration));
        }
    }

    public static LeaseSettings defaults(String namespace) {
        return new LeaseSettings(
                DEFAULT_NAME, namespace, DEFAULT_DURATION, DEFAULT_RENEW_DEADLINE, DEFAULT_RETRY_PERIOD);
    }
}
