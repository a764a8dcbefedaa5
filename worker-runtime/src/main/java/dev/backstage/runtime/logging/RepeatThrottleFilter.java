package dev.backstage.runtime.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Marker;

/**
 * Broker clients that cannot reach their broker repeat the same INFO and WARN lines at every reconnect attempt (an
 * unreachable Kafka wrote 14,000 lines in 16 s). For the loggers in {@link #THROTTLED}, one event per logger and
 * message pattern passes every {@link #WINDOW_MS} ms; the repeats in between are dropped. ERROR events always pass,
 * and so does everything from other loggers (the project's own lines included).
 */
final class RepeatThrottleFilter extends TurboFilter {
    static final List<String> THROTTLED =
            List.of("org.apache.kafka", "kafka", "com.rabbitmq", "io.lettuce", "io.netty");
    static final long WINDOW_MS = 30_000;
    /** Past this many patterns the map is cleared: the throttle must not grow without bound. */
    private static final int MAX_KEYS = 10_000;

    private final Map<String, Long> lastPassed = new ConcurrentHashMap<>();
    private final LongSupplier millis;

    RepeatThrottleFilter() {
        this(System::currentTimeMillis);
    }

    RepeatThrottleFilter(LongSupplier millis) {
        this.millis = millis;
    }

    @Override
    public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
        if (logger == null
                || level == null
                || level.isGreaterOrEqual(Level.ERROR)
                || format == null
                || !logger.isEnabledFor(level)
                || !throttled(logger.getName())) {
            return FilterReply.NEUTRAL;
        }
        if (lastPassed.size() > MAX_KEYS) {
            lastPassed.clear();
        }
        long now = millis.getAsLong();
        String key = logger.getName() + '\u0000' + format;
        Long previous = lastPassed.get(key);
        if (previous != null && now - previous < WINDOW_MS) {
            return FilterReply.DENY;
        }
        lastPassed.put(key, now);
        return FilterReply.NEUTRAL;
    }

    private static boolean throttled(String name) {
        for (String prefix : THROTTLED) {
            if (name.equals(prefix) || name.startsWith(prefix + ".")) {
                return true;
            }
        }
        return false;
    }
}
