package dev.backstage.runtime.rabbitmq;

import dev.backstage.runtime.spi.ConfigurationException;
import java.util.Locale;

/**
 * Where delayed jobs wait (provider option {@code delayedExchange}).
 *
 * <ul>
 *   <li>{@link #AUTO}: the delayed-message exchange when the broker has the plugin, otherwise the
 *       built-in TTL ladder ({@link FallbackDelays}).
 *   <li>{@link #PLUGIN}: the delayed-message exchange; start-up fails when the broker lacks the plugin.
 *   <li>{@link #FALLBACK}: the TTL ladder, without probing for the plugin.
 *   <li>{@link #SUPPLIED}: the provider offers no delays; the worker must be given a delays capability
 *       (e.g. Redis), and refuses to start without one.
 * </ul>
 */
public enum DelayMode {
    AUTO,
    PLUGIN,
    FALLBACK,
    SUPPLIED;

    public static DelayMode parse(String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException(
                    "rabbitmq option delayedExchange='" + value + "' is not one of auto, plugin, fallback, supplied");
        }
    }

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
