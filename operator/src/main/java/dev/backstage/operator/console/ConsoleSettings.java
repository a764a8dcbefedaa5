package dev.backstage.operator.console;

import java.time.Duration;
import java.util.Map;

/**
 * The console's settings from the environment (the chart sets them from {@code console.*}).
 *
 * @param enabled        {@code BACKSTAGE_CONSOLE_ENABLED}: true unless {@code false}
 * @param port           {@code BACKSTAGE_CONSOLE_PORT}, default 8082
 * @param sampleInterval how often each pool's status is sampled into its history (10 s)
 * @param historySamples samples kept per pool (360: one hour at 10 s; {@link PoolHistory#bytesFor} each)
 * @param sessionLifetime how long a sign-in lasts (8 h; the token's own expiry also ends what it may do)
 */
public record ConsoleSettings(
        boolean enabled, int port, Duration sampleInterval, int historySamples, Duration sessionLifetime) {
    public static final int DEFAULT_PORT = 8082;

    public static ConsoleSettings defaults(int port) {
        return new ConsoleSettings(true, port, Duration.ofSeconds(10), 360, Duration.ofHours(8));
    }

    public static ConsoleSettings fromEnv(Map<String, String> env) {
        boolean enabled = !"false"
                .equalsIgnoreCase(
                        env.getOrDefault("BACKSTAGE_CONSOLE_ENABLED", "true").trim());
        String text = env.getOrDefault("BACKSTAGE_CONSOLE_PORT", String.valueOf(DEFAULT_PORT))
                .trim();
        int port;
        try {
            port = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(
                    "BACKSTAGE_CONSOLE_PORT must be a port number (0-65535), got '" + text + "'");
        }
        ConsoleSettings d = defaults(port);
        return new ConsoleSettings(enabled, port, d.sampleInterval(), d.historySamples(), d.sessionLifetime());
    }

    /** The time one history spans. */
    public long historySeconds() {
        return sampleInterval.toSeconds() * historySamples;
    }
}
