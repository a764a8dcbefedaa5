package dev.backstage.runtime.rabbitmq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/**
 * The arithmetic of the fallback delay ladder (pure: no broker).
 *
 * <p>Level {@code L} (0 ≤ L < {@code levels}) is a queue whose every message waits {@code resolution × 2^L}
 * (a per-queue TTL). A delay is rounded <em>up</em> to whole resolution units and written in binary; the
 * message passes through exactly the levels whose bit is set, longest first, and skips the others.
 * Because all messages in one level queue wait the same time, each level queue is FIFO in expiry order:
 * a short delay never waits behind a long one, and the total wait equals the requested delay rounded up
 * to the resolution (never early, at most one resolution late, plus a few milliseconds per hop).
 *
 * <p>The bits travel in the routing key, highest level first ({@code "0.0.1.0.1"}); each level's topic
 * exchange routes on its own word ({@link #bindingPattern}). Dead-lettering keeps the routing key, so the
 * key set at publish time steers every hop.
 *
 * @param resolution the wait of level 0, the smallest step
 * @param levels     number of levels; the longest delay is {@code resolution × (2^levels − 1)}
 */
record DelayLadder(Duration resolution, int levels) {
    /**
     * 100 ms steps and 25 levels: delays up to ~38.8 days, at most 100 ms late. The longest level TTL
     * (100 ms × 2^24 ≈ 19.4 days) stays below 2^31 ms, within what every broker version accepts.
     */
    static DelayLadder standard() {
        return new DelayLadder(Duration.ofMillis(100), 25);
    }

    DelayLadder {
        if (resolution.toMillis() < 1) {
            throw new IllegalArgumentException("resolution must be at least 1 ms");
        }
        if (levels < 1 || levels > 40) {
            throw new IllegalArgumentException("levels must be within 1..40");
        }
    }

    Duration maxDelay() {
        return resolution.multipliedBy(maxUnits());
    }

    private long maxUnits() {
        return (1L << levels) - 1;
    }

    long ttlMs(int level) {
        return resolution.toMillis() << level;
    }

    /** Whole resolution units, rounded up: a job is never delivered before it is due. */
    long units(Duration delay) {
        long ms = delay.toMillis();
        if (ms <= 0) {
            return 0;
        }
        long res = resolution.toMillis();
        return (ms + res - 1) / res;
    }

    /** How a delay travels: the level it enters at, the routing key, and the levels it waits in. */
    record Route(int entryLevel, String routingKey, List<Integer> levels) {}

    /** The route for {@code delay}, or null when it is due already (publish straight to the queue). */
    Route route(Duration delay) {
        long units = units(delay);
        if (units == 0) {
            return null;
        }
        if (units > maxUnits()) {
            throw new IllegalArgumentException("delay " + delay + " exceeds the RabbitMQ fallback delay ladder's "
                    + "maximum of " + maxDelay() + "; use the delayed-message exchange plugin or a supplied delays "
                    + "capability (delayedExchange=plugin|supplied)");
        }
        StringJoiner key = new StringJoiner(".");
        List<Integer> waits = new ArrayList<>();
        for (int level = levels - 1; level >= 0; level--) {
            boolean set = (units & (1L << level)) != 0;
            key.add(set ? "1" : "0");
            if (set) {
                waits.add(level);
            }
        }
        return new Route(waits.get(0), key.toString(), List.copyOf(waits));
    }

    /**
     * The topic pattern matching routing keys whose bit for {@code level} is {@code bit}: the bit's word
     * sits at position {@code levels − 1 − level} from the left.
     */
    String bindingPattern(int level, boolean bit) {
        return "*.".repeat(levels - 1 - level) + (bit ? "1" : "0") + ".#";
    }
}
