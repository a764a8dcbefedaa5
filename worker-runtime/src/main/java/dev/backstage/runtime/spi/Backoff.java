package dev.backstage.runtime.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * Retry back-off, wire-compatible with the seed's {@code {"type","delay","maxDelay"}} object.
 *
 * <p>The formula is the seed's provider version (docs/wire-format.md): fixed waits {@code delay};
 * exponential waits {@code delay × 2^max(0, d−2)} capped at {@code maxDelay} (or one hour when
 * {@code maxDelay} ≤ 0), where {@code d} is the delivery count that just failed.
 */
public record Backoff(Type type, long delayMs, long maxDelayMs) {
    /** One hour: the cap the seed applies when no positive maxDelay is given. */
    public static final long DEFAULT_CAP_MS = 3_600_000L;

    public enum Type {
        FIXED("fixed"),
        EXPONENTIAL("exponential");

        private final String wire;

        Type(String wire) {
            this.wire = wire;
        }

        public String wire() {
            return wire;
        }

        public static Type fromWire(String value) {
            for (Type t : values()) {
                if (t.wire.equalsIgnoreCase(value)) {
                    return t;
                }
            }
            return null;
        }
    }

    public Backoff {
        Objects.requireNonNull(type, "type");
        if (delayMs < 0) {
            throw new ConfigurationException("backoff delay must be >= 0 ms, got " + delayMs);
        }
    }

    public static Backoff fixed(Duration delay) {
        return new Backoff(Type.FIXED, delay.toMillis(), 0);
    }

    public static Backoff exponential(Duration delay, Duration maxDelay) {
        return new Backoff(Type.EXPONENTIAL, delay.toMillis(), maxDelay.toMillis());
    }

    /** The wait before the next delivery after delivery {@code deliveryCount} failed. */
    public long delayFor(int deliveryCount) {
        if (type == Type.FIXED) {
            return delayMs;
        }
        int exponent = Math.max(0, deliveryCount - 2);
        long cap = maxDelayMs > 0 ? maxDelayMs : DEFAULT_CAP_MS;
        if (exponent >= 62 || delayMs > (cap >> Math.min(exponent, 62))) {
            return cap;
        }
        return Math.min(delayMs << exponent, cap);
    }

    /** The cap producers write: always an explicit positive value (docs/wire-format.md). */
    public long wireMaxDelayMs() {
        return maxDelayMs > 0 ? maxDelayMs : DEFAULT_CAP_MS;
    }
}
