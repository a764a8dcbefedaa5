package dev.backstage.runtime.rabbitmq;

import dev.backstage.runtime.spi.BrokerTls;
import dev.backstage.runtime.spi.BrokerUrl;
import dev.backstage.runtime.spi.ConfigurationException;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Redaction;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
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
 *       {@code http://<amqp host>:15672} (each host of {@code addresses} when given) with the AMQP credentials;
 *       several roots separated by commas are asked in turn when one does not answer; {@code off} disables it
 *   <li>{@code confirmTimeoutMs}: how long a publish waits for the broker's confirm (default 10000)
 *   <li>{@code recoveryIntervalMs}: pause between reconnection attempts after a connection loss (default 1000)
 *   <li>{@code topicPrefetch}: unacked messages per topic subscription (default 16)
 *   <li>{@code connectionName}: shown in the broker's connection list (default {@code backstage})
 *   <li>{@code queueType}: {@code classic} (default) | {@code quorum}, the type of the durable queues it declares
 *       — see {@link QueueType}; an existing queue is used as it is, whatever its type
 *   <li>{@code deliveryLimit}: quorum queues only, how often the broker hands out a delivery that is never
 *       settled (its worker keeps dying) before it dead-letters it (default 20) — see {@link QueueArguments}
 *   <li>{@code addresses}: the nodes of a cluster, {@code host:port,host:port,…}; the client connects to the first
 *       that answers and reconnects to any of them after a loss. The URL still gives the scheme,
 *       credentials and vhost (its host and port are then not used)
 *   <li>{@code tlsCaFile}, {@code tlsCertFile}, {@code tlsKeyFile}: PEM CA bundle and client certificate for
 *       {@code amqps://} (and an {@code https://} management API); without a CA file the JDK's roots are trusted.
 *       The server's host name is always verified.
 * </ul>
 *
 * @param url the AMQP URL; may hold credentials, so never log it (use {@link #redactedUrl()})
 * @param tls TLS material for amqps:// (and the management API over https), null for amqp://
 */
public record RabbitMqSettings(
        String url,
        String prefix,
        DelayMode delayMode,
        List<URI> managementUrls,
        Duration confirmTimeout,
        Duration recoveryInterval,
        int topicPrefetch,
        String connectionName,
        BrokerTls tls,
        QueueArguments queueArguments,
        List<com.rabbitmq.client.Address> addresses) {

    public static final String OPTION_DELAYED_EXCHANGE = "delayedExchange";
    public static final String OPTION_MANAGEMENT_URL = "managementUrl";
    public static final String OPTION_CONFIRM_TIMEOUT_MS = "confirmTimeoutMs";
    public static final String OPTION_RECOVERY_INTERVAL_MS = "recoveryIntervalMs";
    public static final String OPTION_TOPIC_PREFETCH = "topicPrefetch";
    public static final String OPTION_CONNECTION_NAME = "connectionName";
    public static final String OPTION_QUEUE_TYPE = "queueType";
    public static final String OPTION_DELIVERY_LIMIT = "deliveryLimit";
    public static final String OPTION_ADDRESSES = "addresses";
    static final int DEFAULT_DELIVERY_LIMIT = 20;

    private static final Set<String> KNOWN_OPTIONS = Set.of(
            OPTION_DELAYED_EXCHANGE,
            OPTION_MANAGEMENT_URL,
            OPTION_CONFIRM_TIMEOUT_MS,
            OPTION_RECOVERY_INTERVAL_MS,
            OPTION_TOPIC_PREFETCH,
            OPTION_CONNECTION_NAME,
            OPTION_QUEUE_TYPE,
            OPTION_DELIVERY_LIMIT,
            OPTION_ADDRESSES,
            BrokerTls.OPT_CA_FILE,
            BrokerTls.OPT_CERT_FILE,
            BrokerTls.OPT_KEY_FILE);

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
        addresses = addresses == null ? List.of() : List.copyOf(addresses);
        managementUrls = managementUrls == null ? List.of() : List.copyOf(managementUrls);
    }

    public static RabbitMqSettings from(ProviderSettings settings) {
        Map<String, String> options = settings.options();
        Set<String> unknown = new TreeSet<>(options.keySet());
        unknown.removeAll(KNOWN_OPTIONS);
        if (!unknown.isEmpty()) {
            throw new ConfigurationException(
                    "unknown rabbitmq option(s) " + unknown + "; known options: " + new TreeSet<>(KNOWN_OPTIONS));
        }
        URI amqp = parseAmqpUrl(settings.url());
        return new RabbitMqSettings(
                settings.url(),
                settings.prefix(),
                DelayMode.parse(settings.option(OPTION_DELAYED_EXCHANGE, "auto")),
                managementUrls(
                        settings.option(OPTION_MANAGEMENT_URL, null),
                        amqp,
                        addresses(settings.option(OPTION_ADDRESSES, null))),
                Duration.ofMillis(positiveLong(settings, OPTION_CONFIRM_TIMEOUT_MS, 10_000)),
                Duration.ofMillis(positiveLong(settings, OPTION_RECOVERY_INTERVAL_MS, 1_000)),
                (int) positiveLong(settings, OPTION_TOPIC_PREFETCH, 16),
                settings.option(OPTION_CONNECTION_NAME, "backstage"),
                tls(amqp, BrokerTls.from(options).orElse(null)),
                new QueueArguments(QueueType.parse(settings.option(OPTION_QUEUE_TYPE, "classic")), (int)
                        positiveLong(settings, OPTION_DELIVERY_LIMIT, DEFAULT_DELIVERY_LIMIT)),
                addresses(settings.option(OPTION_ADDRESSES, null)));
    }

    /** {@code host:port,host:port}: every entry needs both, so a typo never silently means port 5672. */
    private static List<com.rabbitmq.client.Address> addresses(String option) {
        if (option == null || option.isBlank()) {
            return List.of();
        }
        List<com.rabbitmq.client.Address> result = new java.util.ArrayList<>();
        for (String entry : option.split(",")) {
            String trimmed = entry.trim();
            int colon = trimmed.lastIndexOf(':');
            try {
                int port = colon > 0 ? Integer.parseInt(trimmed.substring(colon + 1)) : -1;
                if (port < 1 || port > 65535) {
                    throw new NumberFormatException();
                }
                result.add(new com.rabbitmq.client.Address(trimmed.substring(0, colon), port));
            } catch (NumberFormatException e) {
                throw new ConfigurationException("rabbitmq option addresses needs host:port entries separated by"
                        + " commas (e.g. 10.0.0.1:5672,10.0.0.2:5672), got '" + trimmed + "'");
            }
        }
        return List.copyOf(result);
    }

    /** The type of the durable queues this provider declares. */
    public QueueType queueType() {
        return queueArguments.type();
    }

    /** amqps:// always gets TLS material (the JDK's roots when none is configured); amqp:// must not have any. */
    private static BrokerTls tls(URI amqp, BrokerTls configured) {
        boolean secure = "amqps".equalsIgnoreCase(amqp.getScheme());
        if (!secure && configured != null) {
            throw new ConfigurationException(
                    "TLS files are set but the rabbitmq URL is amqp://; use amqps://host:5671");
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

    /** Where the provider connects, for messages: the redacted URL, and the cluster's nodes when given. */
    public String redactedTarget() {
        return addresses.isEmpty()
                ? redactedUrl()
                : redactedUrl() + " (nodes "
                        + addresses.stream()
                                .map(a -> a.getHost() + ":" + a.getPort())
                                .collect(java.util.stream.Collectors.joining(","))
                        + ")";
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
                throw new ConfigurationException(
                        "the rabbitmq URL has no readable host; write e.g. " + BrokerUrl.RABBITMQ.example());
            }
            return uri;
        } catch (URISyntaxException e) {
            throw new ConfigurationException(
                    "the rabbitmq URL is not a valid URI; write e.g. " + BrokerUrl.RABBITMQ.example());
        }
    }

    /** The first management API root, if any. */
    public Optional<URI> managementUrl() {
        return managementUrls.stream().findFirst();
    }

    /**
     * The management API sits on port 15672 (15671 with TLS) of the AMQP host, or of every host of {@code addresses},
     * unless configured otherwise: one root, or a cluster's roots separated by commas (asked in turn when one node
     * does not answer).
     */
    private static List<URI> managementUrls(String option, URI amqp, List<com.rabbitmq.client.Address> addresses) {
        if (option != null && option.equalsIgnoreCase("off")) {
            return List.of();
        }
        if (option != null && !option.isBlank()) {
            List<URI> result = new java.util.ArrayList<>();
            for (String entry : option.split(",")) {
                try {
                    URI uri = new URI(entry.trim());
                    if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())
                            || uri.getHost() == null) {
                        throw new ConfigurationException("rabbitmq managementUrl must be http(s)://… (several separated"
                                + " by commas), or off");
                    }
                    result.add(uri);
                } catch (URISyntaxException e) {
                    throw new ConfigurationException("rabbitmq managementUrl is not a valid URI: " + e.getReason());
                }
            }
            return List.copyOf(result);
        }
        boolean secure = "amqps".equalsIgnoreCase(amqp.getScheme());
        java.util.Set<String> hosts = new java.util.LinkedHashSet<>();
        addresses.forEach(a -> hosts.add(a.getHost()));
        if (hosts.isEmpty()) {
            hosts.add(amqp.getHost() == null ? "127.0.0.1" : amqp.getHost());
        }
        return hosts.stream()
                .map(host -> URI.create(secure ? "https://" + host + ":15671" : "http://" + host + ":15672"))
                .toList();
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
