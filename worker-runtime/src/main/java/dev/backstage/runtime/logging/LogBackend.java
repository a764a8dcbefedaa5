package dev.backstage.runtime.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * The one place that turns {@link LogSettings} into the logging backend's configuration (logback), for the
 * mains only: the runtime's container main, the operator's main, the CLI and the demos call it first thing. The
 * library never does (it logs through slf4j-api and leaves the backend to the application).
 */
public final class LogBackend {
    /** Text lines: time (UTC), level, thread, logger, the MDC when set, message, stack trace. */
    static final String TEXT_PATTERN =
            "%d{yyyy-MM-dd'T'HH:mm:ss.SSSX,UTC} %-5level [%thread] %logger%replace( [%mdc]){' \\[\\]', ''} - %msg%n";

    /** Where the lines go: stdout for the long-running mains (a container's log), stderr for the CLI. */
    public enum Target {
        STDOUT,
        STDERR
    }

    private LogBackend() {}

    /**
     * Configures the backend from {@code env} ({@link LogSettings#fromEnv}); on a bad value prints one line naming
     * the variable and the allowed values to stderr and exits with status 2. What the mains call first thing.
     */
    public static LogSettings configureFromEnvOrExit(Map<String, String> env) {
        LogSettings settings;
        try {
            settings = LogSettings.fromEnv(env);
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.exit(2);
            throw e; // not reached
        }
        configure(settings, Target.STDOUT);
        return settings;
    }

    /**
     * Replaces whatever configuration logback found (a logback.xml on the class path, its defaults) by one console
     * appender in {@code settings.format()} and the levels of {@code settings}. Uncaught exceptions are logged
     * through it too, so in JSON mode no stack trace reaches the console as loose lines.
     */
    public static void configure(LogSettings settings, Target target) {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        context.reset();
        WireDumpFilter wireDumps = new WireDumpFilter();
        wireDumps.setContext(context);
        wireDumps.start();
        context.addTurboFilter(wireDumps);
        RepeatThrottleFilter repeats = new RepeatThrottleFilter();
        repeats.setContext(context);
        repeats.start();
        context.addTurboFilter(repeats);
        Encoder<ILoggingEvent> encoder;
        if (settings.format() == LogFormat.JSON) {
            encoder = new JsonLinesEncoder();
        } else {
            PatternLayoutEncoder text = new PatternLayoutEncoder();
            text.setPattern(TEXT_PATTERN);
            text.setCharset(StandardCharsets.UTF_8);
            encoder = text;
        }
        encoder.setContext(context);
        encoder.start();
        ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
        console.setContext(context);
        console.setName("console");
        console.setTarget(target == Target.STDOUT ? "System.out" : "System.err");
        console.setEncoder(encoder);
        console.start();
        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.toLevel(settings.effectiveLibraryLevel()));
        root.addAppender(console);
        context.getLogger(LogSettings.PROJECT_LOGGER).setLevel(Level.toLevel(settings.level()));
        context.getLogger("uncaught").setLevel(Level.toLevel(settings.level()));
        settings.loggers().forEach((name, level) -> context.getLogger(name).setLevel(Level.toLevel(level)));
        Thread.setDefaultUncaughtExceptionHandler((thread, e) ->
                LoggerFactory.getLogger("uncaught").error("uncaught exception in thread {}", thread.getName(), e));
    }
}
