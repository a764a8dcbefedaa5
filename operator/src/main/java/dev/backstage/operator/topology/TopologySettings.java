package dev.backstage.operator.topology;

import dev.backstage.runtime.config.Durations;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * How the topology reconciler polls and cleans up, from the environment (the Helm chart may set them; tests
 * shorten them).
 *
 * @param pollInterval       how often a topology is re-checked on the broker, so objects deleted behind the
 *                           operator's back are re-declared and a fixed Secret or a returning broker is picked
 *                           up ({@code BACKSTAGE_TOPOLOGY_POLL_INTERVAL}, Go-style duration, default 30s)
 * @param cleanupAttempts    with {@code deletionPolicy: delete}, how many failed attempts to delete the broker
 *                           objects before the finalizer is removed anyway, so a topology never blocks namespace
 *                           deletion for ever ({@code BACKSTAGE_TOPOLOGY_CLEANUP_ATTEMPTS}, default 5)
 * @param cleanupRetryDelay  the wait between two failed cleanup attempts
 *                           ({@code BACKSTAGE_TOPOLOGY_CLEANUP_RETRY_DELAY}, default 10s)
 */
public record TopologySettings(Duration pollInterval, int cleanupAttempts, Duration cleanupRetryDelay) {
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(30);
    public static final int DEFAULT_CLEANUP_ATTEMPTS = 5;
    public static final Duration DEFAULT_CLEANUP_RETRY_DELAY = Duration.ofSeconds(10);

    public TopologySettings {
        Objects.requireNonNull(pollInterval, "pollInterval");
        Objects.requireNonNull(cleanupRetryDelay, "cleanupRetryDelay");
        if (pollInterval.isZero() || pollInterval.isNegative()) {
            throw new IllegalArgumentException("the topology poll interval must be positive, got " + pollInterval);
        }
        if (cleanupAttempts < 1) {
            throw new IllegalArgumentException("cleanup attempts must be >= 1, got " + cleanupAttempts);
        }
        if (cleanupRetryDelay.isNegative()) {
            throw new IllegalArgumentException("the cleanup retry delay must not be negative");
        }
    }

    public static TopologySettings defaults() {
        return new TopologySettings(DEFAULT_POLL_INTERVAL, DEFAULT_CLEANUP_ATTEMPTS, DEFAULT_CLEANUP_RETRY_DELAY);
    }

    public static TopologySettings fromEnv(Map<String, String> env) {
        Duration poll = Durations.parseOr(
                "BACKSTAGE_TOPOLOGY_POLL_INTERVAL",
                blankToNull(env.get("BACKSTAGE_TOPOLOGY_POLL_INTERVAL")),
                DEFAULT_POLL_INTERVAL);
        Duration retry = Durations.parseOr(
                "BACKSTAGE_TOPOLOGY_CLEANUP_RETRY_DELAY",
                blankToNull(env.get("BACKSTAGE_TOPOLOGY_CLEANUP_RETRY_DELAY")),
                DEFAULT_CLEANUP_RETRY_DELAY);
        String attemptsText = blankToNull(env.get("BACKSTAGE_TOPOLOGY_CLEANUP_ATTEMPTS"));
        int attempts;
        try {
            attempts = attemptsText == null ? DEFAULT_CLEANUP_ATTEMPTS : Integer.parseInt(attemptsText);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "BACKSTAGE_TOPOLOGY_CLEANUP_ATTEMPTS must be a whole number, got '" + attemptsText + "'", e);
        }
        return new TopologySettings(poll, attempts, retry);
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.trim();
    }
}
