package dev.backstage.runtime.config;

import java.time.Duration;
import java.util.regex.Matcher;

/**
 * Durations as text are Go-style strings ({@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h30m}), the form
 * Kubernetes users already write in other resources. The CRDs hold them (their schemas check them with
 * {@link #PATTERN}) and the CLI takes them ({@code --delay 30s}); this class turns them into {@link Duration}s.
 */
public final class Durations {
    /** One or more {@code <integer><unit>} parts, unit in ms, s, m, h. */
    public static final String PATTERN = "^([0-9]+(ms|s|m|h))+$";

    /** Longest duration text the schemas accept (bounds the API server's CEL cost estimate). */
    public static final int MAX_LENGTH = 32;

    /** CEL: a duration in {@link #PATTERN} form is greater than zero exactly when some digit is not 0. */
    public static final String POSITIVE_RULE = "self.matches('[1-9]')";

    /** CEL: at most one hour (Kubernetes CEL reads Go durations; every {@link #PATTERN} value is one). */
    public static final String AT_MOST_ONE_HOUR_RULE = "duration(self) <= duration('1h')";

    /** What {@link #AT_MOST_ONE_HOUR_RULE} allows, for admission. */
    public static final Duration ONE_HOUR = Duration.ofHours(1);

    private static final java.util.regex.Pattern WHOLE = java.util.regex.Pattern.compile(PATTERN);
    private static final java.util.regex.Pattern PART = java.util.regex.Pattern.compile("([0-9]+)(ms|s|m|h)");

    private Durations() {}

    /**
     * Parses a Go-style duration.
     *
     * @param field the field's path, for the error message (e.g. {@code spec.shutdownGracePeriod}); {@code null}
     *     when the caller names the field itself
     * @throws IllegalArgumentException naming the field and the accepted form when the value is malformed
     */
    public static Duration parse(String field, String value) {
        if (value == null || !WHOLE.matcher(value).matches()) {
            throw new IllegalArgumentException(
                    named(field) + "'" + value + "' is not a duration; write e.g. 500ms, 30s, 5m or 1h30m");
        }
        Duration total = Duration.ZERO;
        Matcher part = PART.matcher(value);
        while (part.find()) {
            try {
                long amount = Long.parseLong(part.group(1));
                total = total.plus(
                        switch (part.group(2)) {
                            case "ms" -> Duration.ofMillis(amount);
                            case "s" -> Duration.ofSeconds(amount);
                            case "m" -> Duration.ofMinutes(amount);
                            case "h" -> Duration.ofHours(amount);
                            default -> throw new IllegalStateException("unit not in PATTERN: " + part.group(2));
                        });
                total.toMillis(); // every consumer works in milliseconds: reject what they cannot hold
            } catch (NumberFormatException | ArithmeticException e) {
                throw new IllegalArgumentException(
                        named(field) + "'" + value + "' is too large; write e.g. 500ms, 30s, 5m or 1h30m");
            }
        }
        return total;
    }

    private static String named(String field) {
        return field == null ? "" : field + ": ";
    }

    /** Like {@link #parse} but {@code null} in, {@code fallback} out. */
    public static Duration parseOr(String field, String value, Duration fallback) {
        return value == null ? fallback : parse(field, value);
    }

    /** Renders a duration in the same form, the shortest exact one (e.g. 90s → {@code 1m30s}). */
    public static String format(Duration duration) {
        long ms = duration.toMillis();
        if (ms == 0) {
            return "0s";
        }
        StringBuilder out = new StringBuilder();
        long hours = ms / 3_600_000;
        ms %= 3_600_000;
        long minutes = ms / 60_000;
        ms %= 60_000;
        long seconds = ms / 1000;
        ms %= 1000;
        if (hours > 0) out.append(hours).append('h');
        if (minutes > 0) out.append(minutes).append('m');
        if (seconds > 0) out.append(seconds).append('s');
        if (ms > 0) out.append(ms).append("ms");
        return out.toString();
    }
}
