package dev.backstage.runtime.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import java.util.List;
import org.slf4j.Marker;

/**
 * Keeps the broker clients' wire dumps out of every log, whatever level is configured: below INFO, lettuce's protocol
 * loggers write the bytes sent to Redis (an {@code AUTH} command carries the password) and netty's
 * {@code LoggingHandler} writes raw buffers. These events are denied before any appender sees them; the same
 * loggers' INFO, WARN and ERROR events pass.
 */
final class WireDumpFilter extends TurboFilter {
    /** Logger name prefixes whose TRACE and DEBUG events may carry credentials. */
    static final List<String> WIRE_LOGGERS = List.of(
            "io.lettuce.core.protocol",
            "io.lettuce.core.RedisChannelHandler",
            "io.lettuce.core.AbstractRedisClient",
            "io.lettuce.core.ConnectionBuilder",
            "io.netty.handler.logging");

    @Override
    public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
        if (level == null || level.isGreaterOrEqual(Level.INFO) || logger == null) {
            return FilterReply.NEUTRAL;
        }
        String name = logger.getName();
        for (String wire : WIRE_LOGGERS) {
            if (name.startsWith(wire)) {
                return FilterReply.DENY;
            }
        }
        return FilterReply.NEUTRAL;
    }
}
