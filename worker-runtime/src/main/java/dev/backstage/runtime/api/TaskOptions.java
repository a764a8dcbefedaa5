package dev.backstage.runtime.api;

import dev.backstage.runtime.spi.Backoff;
import dev.backstage.runtime.spi.ConfigurationException;
import java.time.Duration;

/**
 * Per-task policy. Unset values fall back to the worker's. {@code hardTimeout} interrupts the handler
 * and counts as a failure.
 */
public record TaskOptions(Integer maxDeliveries, Backoff backoff, Duration hardTimeout) {
    public static final TaskOptions DEFAULTS = new TaskOptions(null, null, null);

    public TaskOptions {
        if (maxDeliveries != null && maxDeliveries < 1) {
            throw new ConfigurationException("maxDeliveries must be >= 1, got " + maxDeliveries);
        }
        if (hardTimeout != null && (hardTimeout.isZero() || hardTimeout.isNegative())) {
            throw new ConfigurationException("hardTimeout must be positive, got " + hardTimeout);
        }
    }

    public static TaskOptions defaults() {
        return DEFAULTS;
    }

    public TaskOptions withMaxDeliveries(int value) {
        return new TaskOptions(value, backoff, hardTimeout);
    }

    public TaskOptions withBackoff(Backoff value) {
        return new TaskOptions(maxDeliveries, value, hardTimeout);
    }

    public TaskOptions withHardTimeout(Duration value) {
        return new TaskOptions(maxDeliveries, backoff, value);
    }
}
