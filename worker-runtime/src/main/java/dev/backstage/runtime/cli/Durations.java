package dev.backstage.runtime.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}. */
final class Durations {
    private static final Pattern FORMAT = Pattern.compile("(\\d+)(ms|s|m|h)");

    private Durations() {}

    static Duration parse(String text, String flag) {
        Matcher m = FORMAT.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException(flag + " must look like 500ms, 30s, 5m or 2h, got '" + text + "'");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
        };
    }
}
