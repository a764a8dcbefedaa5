package dev.backstage.operator.main;

import java.time.Duration;
import java.util.Objects;

/**
 * The leader-election Lease: where it lives and its timing (client-go's defaults: 15 s lease, 10 s renew
 * deadline, 2 s retry). A leader that cannot renew within the deadline stops leading.
 *
 * @param namespace null = the client's namespace
 */
public record LeaseSettings(String name, String namespace, Duration duration, Duration renewDeadline,
        Duration retryPeriod) {
    public static final String DEFAULT_NAME = "backstage-operator-leader";
    public static final Duration DEFAULT_DURATION = Duration.ofSeconds(15);
    public static final Duration DEFAULT_RENEW_DEADLINE = Duration.ofSeconds(10);
    public static final Duration DEFAULT_RETRY_PERIOD = Duration.ofSeconds(2);

    public LeaseSettings {
        Objects.requireNonNull(name, "name");
        if (!(retryPeriod.compareTo(renewDeadline) < 0 && renewDeadline.compareTo(duration) < 0)) {
            throw new IllegalArgumentException("lease timing must satisfy retryPeriod < renewDeadline < duration, got "
                    + retryPeriod + " / " + renewDeadline + " / " + duration);
        }
    }

    public static LeaseSettings defaults(String namespace) {
        return new LeaseSettings(DEFAULT_NAME, namespace, DEFAULT_DURATION, DEFAULT_RENEW_DEADLINE, DEFAULT_RETRY_PERIOD);
    }
}
