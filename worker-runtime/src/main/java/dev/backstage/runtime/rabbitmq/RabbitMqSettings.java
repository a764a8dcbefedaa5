package dev.backstage.runtime.rabbitmq;

import dev.backstage.runtime.spi.BrokerTls;
import dev.backstage.runtime.spi.BrokerUrl;
import dev.backstage.runtime.spi.Redaction;
import dev.backstage.runtime.spi.ConfigurationException;
import dev.backstage.runtime.spi.ProviderSettings;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The RabbitMQ provider's settings, parsed and validated from the neutral {@link ProviderSettings}.
 *
 * <p>Options ({@code ProviderSettings.options}, all optional):
 * <ul>
 *   <li>{@code delayedExchange}: {@code auto} (default) | {@code plugin} | {@code fallback} | {@code supplied}
 *       — see {@link DelayMode}
 *   <li>{@code managementUrl}: the management API, e.g. {@code http://guest:guest@127.0.0.1:15672}; default
 *       {@code http://<amqp host>:15672} with the AMQP credentials; {@code off} disables it
 *   <li>{@code confirmTimeoutMs}: how long a publish waits for the broker's confirm (default 10000)
 *   <li>{@code recoveryIntervalMs}: pause between reconnection attempts after a connection loss (default 1000)
 *   <li>{@code topicPrefetch}: unacked messages per topic subscription (default 16)
 *   <li>{@code connectionName}: shown in the broker's connection list (default {@code backstage})
 *   <li>{@code tlsCaFile}, {@code tlsCertFile}, {@code tlsKeyFile}: PEM CA bundle and client certificate for
 *       {@code amqps://} (and an {@code https://} management API); without a CA file the JDK's roots are trusted.
 *       The server's host name is always verified.
 * </ul>
 *
 * @param url the AMQP URL; may hold credentials, so never log it (use {@link #redactedUrl()})
 * @param tls TLS material for amqps:// (and the management API over https), null for amqp://
 */
public record RabbitMqSettings(
        String url, String prefix, DelayMode delayMode, Optional<URI> managementUrl, Duration confirmTimeout,
        Duration recoveryInterval, int topicPrefetch, String connectionName, BrokerTls tls) {

    public static final String OPTION_DELAYED_EXCHANGE = "delayedExchange";
    public static final String OPTION_MANAGEMENT_URL = "managementUrl";
    public static final String OPTION_CONFIRM_TIMEOUT_MS = "confirmTimeoutMs";
    public static final String OPTION_RECOVERY_INTERVAL_MS = "recoveryIntervalMs";
    public static final String OPTION_TOPIC_PREFETCH = "topicPrefetch";
    public static final String OPTION_CONNECTION_NAME = "connectionName";

    private static final Set<String> KNOWN_OPTIONS = Set.of(OPTION_DELAYED_EXCHANGE, OPTION_MANAGEMENT_URL,
            OPTION_CONFIRM_TIMEOUT_MS, OPTION_RECOVERY_INTERVAL_MS, OPTION_TOPIC_PREFETCH, OPTION_CONNECTION_NAME,
            BrokerTls.OPT_CA_FILE, BrokerTls.OPT_CERT_FILE, BrokerTls.OPT_KEY_FILE);

    public RabbitMqSettings {
        if (confirmTimeout.isNegative() || confirmTimeout.isZero()) {
            throw new ConfigurationException("rabbitmq confirmTimeoutMs must be positive");
        }
        if (recoveryInterval.isNegative() || recoveryInterval.isZero()) {
            throw new ConfigurationException("rabbitmq recoveryIntervalMs must be positive");
        }
        if (topicPrefetch < 1) {
            throw new ConfigurationException("rabbitmq topicPrefetch must be >= 1, got " + topicPrefetch);
        }
    }

    public static RabbitMqSettings from(ProviderSettings settings) {
        Map<String, String> options = settings.options();
        Set<String> unknown = new TreeSet<>(options.keySet());
        unknown.removeAll(KNOWN_OPTIONS);
        if (!unknown.isEmpty()) {
            throw new ConfigurationException("unknown rabbitmq option(s) " + unknown + "; known options: "
                    + new TreeSet<>(KNOWN_OPTIONS));
        }
        URI amqp = parseAmqpUrl(settings.url());
        return new RabbitMqSettings(
                settings.url(),
                settings.prefix(),
                DelayMode.parse(settings.option(OPTION_DELAYED_EXCHANGE, "auto")),
                managementUrl(settings.option(OPTION_MANAGEMENT_URL, null), amqp),
                Duration.ofMillis(positiveLong(settings, OPTION_CONFIRM_TIMEOUT_MS, 10_000)),
                Duration.ofMillis(positiveLong(settings, OPTION_RECOVERY_INTERVAL_MS, 1_000)),
                (int) positiveLong(settings, OPTION_TOPIC_PREFETCH, 16),
                settings.option(OPTION_CONNECTION_NAME, "backstage"),
                tls(amqp, BrokerTls.from(options).orElse(null)));
    }

    /** amqps:// always gets TLS material (the JDK's roots when none is configured); amqp:// must not have any. */
    private static BrokerTls tls(URI amqp, BrokerTls configured) {
        boolean secure = "amqps".equalsIgnoreCase(amqp.getScheme());
        if (!secure && configured != null) {
            throw new ConfigurationException("TLS files are set but the rabbitmq URL is amqp://; use amqps://host:5671");
        }
        return secure && configured == null ? new BrokerTls(null, null, null) : configured;
    }

    /** True for amqps://. */
    public boolean secure() {
        return tls != null;
    }

    public RabbitMqNames names() {
        return new RabbitMqNames(prefix);
    }

    public String redactedUrl() {
        return Redaction.url(url);
    }

    /**
     * Strict ({@link BrokerUrl}): a URL the client library would read as another host or user (it falls back to
     * {@code guest@localhost:5672} for what {@link URI} cannot split) is refused before it gets there.
     */
    private static URI parseAmqpUrl(String url) {
        BrokerUrl.parse(url, BrokerUrl.RABBITMQ);
        try {
            URI uri = new URI(url);
            if (uri.getHost() == null || uri.getPort() == 0) {
                throw new ConfigurationException("the rabbitmq URL has no readable host; write e.g. "
                        + BrokerUrl.RABBITMQ.example());
            }
            return uri;
        } catch (URISyntaxException e) {
            throw new ConfigurationException("the rabbitmq URL is not a valid URI; write e.g. "
                    + BrokerUrl.RABBITMQ.example());
        }
    }

    /** The management API sits on port 15672 of the AMQP host unless configured otherwise. */
    private static Optional<URI> managementUrl(String option, URI amqp) {
        if (option != null && option.equalsIgnoreCase("off")) {
            return Optional.empty();
        }
        if (option != null && !option.isBlank()) {
            try {
                URI uri = new URI(option);
                if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())
                        || uri.getHost() == null) {
                    throw new ConfigurationException("rabbitmq managementUrl must be http(s)://[user:password@]host:port"
                            + " (percent-encode '@' in the password as %40), or off");
                }
                return Optional.of(uri);
            } catch (URISyntaxException e) {
                throw new ConfigurationException("rabbitmq managementUrl is not a valid URI; write "
                        + "http(s)://[user:password@]host:port (percent-encode '@' in the password as %40), or off");
            }
        }
        String host = amqp.getHost() == null ? "127.0.0.1" : amqp.getHost();
        return Optional.of(URI.create("amqps".equalsIgnoreCase(amqp.getScheme()) ? "https://" + host + ":15671"
                : "http://" + host + ":15672"));
    }

    private static long positiveLong(ProviderSettings settings, String key, long defaultValue) {
        String raw = settings.option(key, null);
        if (raw == null) {
            return defaultValue;
        }
        try {
            long value = Long.parseLong(raw.trim());
            if (value <= 0) {
                throw new ConfigurationException("rabbitmq option " + key + " must be positive, got " + raw);
            }
            return value;
        } catch (NumberFormatException e) {
            throw new ConfigurationException("rabbitmq option " + key + " must be a number, got '" + raw + "'");
        }
    }
}
