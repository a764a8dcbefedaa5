package dev.backstage.runtime.logging;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** How a main writes its log: {@code text} (one readable line per event) or {@code json} (one JSON object per line). */
public enum LogFormat {
    TEXT,
    JSON;

    /** {@code text} or {@code json}, any case; anything else is an {@link IllegalArgumentException} naming both. */
    public static LogFormat parse(String variable, String value) {
        String wanted = value.trim().toLowerCase(Locale.ROOT);
        for (LogFormat format : values()) {
            if (format.id().equals(wanted)) {
                return format;
            }
        }
        throw new IllegalArgumentException(variable + " must be one of " + allowed() + ", got '" + value + "'");
    }

    /** The value as users write it: {@code text} or {@code json}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    static String allowed() {
        return Arrays.stream(values()).map(LogFormat::id).collect(Collectors.joining(", "));
    }
}
