package dev.backstage.runtime.spi;

import java.util.Map;
import java.util.Objects;

/**
 * How to reach a broker, provider-neutral.
 *
 * @param provider       {@code redis}, {@code rabbitmq} or {@code kafka}
 * @param url            connection URL (redis://…, amqp://…, or a Kafka bootstrap list); may hold
 *                       credentials, so it is never logged or written to status
 * @param prefix         key/queue/topic prefix (default {@code backstage}); in braces ({@code {backstage}}) for
 *                       provider redis only
 * @param consumerGroup  jobs consumer group (default {@code backstage-workers})
 * @param options        provider-specific settings (e.g. {@code delayedExchange=auto}); unknown keys are errors
 */
public record ProviderSettings(
        String provider, String url, String prefix, String consumerGroup, Map<String, String> options) {
    public static final String DEFAULT_PREFIX = "backstage";
    public static final String DEFAULT_GROUP = "backstage-workers";

    public ProviderSettings {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(url, "url");
        prefix = prefix == null || prefix.isBlank() ? DEFAULT_PREFIX : prefix;
        consumerGroup = consumerGroup == null || consumerGroup.isBlank() ? DEFAULT_GROUP : consumerGroup;
        BrokerNames.requirePrefix("key prefix", prefix, provider);
        BrokerNames.requireGroup("consumer group", consumerGroup);
        options = options == null ? Map.of() : Map.copyOf(options);
    }

    public static ProviderSettings of(String provider, String url) {
        return new ProviderSettings(provider, url, null, null, null);
    }

    public ProviderSettings withPrefix(String value) {
        return new ProviderSettings(provider, url, value, consumerGroup, options);
    }

    public ProviderSettings withGroup(String value) {
        return new ProviderSettings(provider, url, prefix, value, options);
    }

    public ProviderSettings withOptions(Map<String, String> value) {
        return new ProviderSettings(provider, url, prefix, consumerGroup, value);
    }

    public String option(String key, String defaultValue) {
        return options.getOrDefault(key, defaultValue);
    }

    /** Safe for logs: the URL with any user-info replaced. */
    public String redactedUrl() {
        return Redaction.url(url);
    }
}
