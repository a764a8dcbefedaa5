package dev.backstage.runtime.logging;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * What a main's log looks like: the root level, levels of single loggers and the format. Read from the
 * environment, the same variables for the operator and the runtime container (the Helm chart sets the operator's;
 * the operator sets the workers'):
 * <ul>
 *   <li>{@code BACKSTAGE_LOG_LEVEL}: the project's own loggers ({@code dev.backstage.*}): {@code trace},
 *       {@code debug}, {@code info} (default), {@code warn}, {@code error} or {@code off};</li>
 *   <li>{@code BACKSTAGE_LOG_LIBRARY_LEVEL}: every other logger (the broker clients, netty, JOSDK, fabric8); unset, it
 *       is {@code info}, or the project's level when that is quieter: {@code debug} for the project never turns on
 *       the libraries' debug output;</li>
 *   <li>{@code BACKSTAGE_LOG_LEVELS}: levels of single loggers, {@code io.javaoperatorsdk=debug,org.apache.kafka=warn};</li>
 *   <li>{@code BACKSTAGE_LOG_FORMAT}: {@code text} (default) or {@code json} (JSON lines on stdout).</li>
 * </ul>
 *
 * @param level   the level of the project's own loggers ({@value #PROJECT_LOGGER}), lower case
 * @param loggers logger name to level, sorted by name
 * @param format  text or JSON lines
 * @param libraryLevel the level of every other logger (the root), or null for {@link #effectiveLibraryLevel()}'s default
 */
public record LogSettings(String level, Map<String, String> loggers, LogFormat format, String libraryLevel) {
    public static final String LEVEL_ENV = "BACKSTAGE_LOG_LEVEL";
    public static final String LOGGERS_ENV = "BACKSTAGE_LOG_LEVELS";
    public static final String FORMAT_ENV = "BACKSTAGE_LOG_FORMAT";
    public static final String LIBRARY_LEVEL_ENV = "BACKSTAGE_LOG_LIBRARY_LEVEL";
    /** The loggers {@link #level()} applies to. */
    public static final String PROJECT_LOGGER = "dev.backstage";
    /** The levels, most verbose first; {@code off} silences. */
    public static final List<String> LEVELS = List.of("trace", "debug", "info", "warn", "error", "off");

    public static final LogSettings DEFAULTS = new LogSettings("info", Map.of(), LogFormat.TEXT);

    private static final Pattern LOGGER_NAME =
            Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*");

    public LogSettings {
        level = level(LEVEL_ENV, level);
        Map<String, String> sorted = new TreeMap<>();
        loggers.forEach((name, value) -> sorted.put(name, level(LOGGERS_ENV + " (" + name + ")", value)));
        loggers = java.util.Collections.unmodifiableMap(sorted);
        Objects.requireNonNull(format, "format");
        libraryLevel = libraryLevel == null ? null : level(LIBRARY_LEVEL_ENV, libraryLevel);
    }

    /** The project's level for its own loggers; libraries at {@link #effectiveLibraryLevel()}. */
    public LogSettings(String level, Map<String, String> loggers, LogFormat format) {
        this(level, loggers, format, null);
    }

    /** The libraries' level: as set, else {@code info}, or the project's level when that is quieter. */
    public String effectiveLibraryLevel() {
        if (libraryLevel != null) {
            return libraryLevel;
        }
        return LEVELS.indexOf(level) > LEVELS.indexOf("info") ? level : "info";
    }

    /** The settings in {@code env} under the standard names; unset or blank variables keep {@link #DEFAULTS}. */
    public static LogSettings fromEnv(Map<String, String> env) {
        return fromEnv(env, "BACKSTAGE_LOG_", DEFAULTS);
    }

    /**
     * The settings in {@code env} under {@code prefix} + {@code LEVEL}, {@code LEVELS}, {@code FORMAT} (the operator
     * reads the workers' defaults from {@code BACKSTAGE_WORKER_LOG_*}); unset or blank variables keep
     * {@code defaults}. A bad value is an {@link IllegalArgumentException} whose message names the variable and
     * the allowed values.
     */
    public static LogSettings fromEnv(Map<String, String> env, String prefix, LogSettings defaults) {
        String level = env.get(prefix + "LEVEL");
        String loggers = env.get(prefix + "LEVELS");
        String format = env.get(prefix + "FORMAT");
        String library = env.get(prefix + "LIBRARY_LEVEL");
        return new LogSettings(
                blank(level) ? defaults.level() : level(prefix + "LEVEL", level),
                blank(loggers) ? defaults.loggers() : loggers(prefix + "LEVELS", loggers),
                blank(format) ? defaults.format() : LogFormat.parse(prefix + "FORMAT", format),
                blank(library) ? defaults.libraryLevel() : level(prefix + "LIBRARY_LEVEL", library));
    }

    /** These settings as the standard variables ({@code BACKSTAGE_LOG_*}), empty ones left out. */
    public Map<String, String> toEnv() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put(LEVEL_ENV, level);
        if (!loggers.isEmpty()) {
            env.put(
                    LOGGERS_ENV,
                    String.join(
                            ",",
                            loggers.entrySet().stream()
                                    .map(e -> e.getKey() + "=" + e.getValue())
                                    .toList()));
        }
        env.put(FORMAT_ENV, format.id());
        if (libraryLevel != null) {
            env.put(LIBRARY_LEVEL_ENV, libraryLevel);
        }
        return env;
    }

    private static String level(String variable, String value) {
        String wanted = Objects.requireNonNull(value, variable).trim().toLowerCase(Locale.ROOT);
        if (!LEVELS.contains(wanted)) {
            throw new IllegalArgumentException(
                    variable + " must be one of " + String.join(", ", LEVELS) + ", got '" + value + "'");
        }
        return wanted;
    }

    private static Map<String, String> loggers(String variable, String value) {
        Map<String, String> loggers = new TreeMap<>();
        for (String entry : value.split(",")) {
            if (entry.isBlank()) {
                continue;
            }
            int eq = entry.indexOf('=');
            String name = eq < 0 ? "" : entry.substring(0, eq).trim();
            if (!LOGGER_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException(variable + " must be a comma-separated list of <logger>=<level>"
                        + " (e.g. io.javaoperatorsdk=debug,org.apache.kafka=warn), got '" + entry.trim() + "'");
            }
            loggers.put(name, level(variable + " (" + name + ")", entry.substring(eq + 1)));
        }
        return loggers;
    }

    private static boolean blank(String value) {
        return value == null || value.isBlank();
    }
}
