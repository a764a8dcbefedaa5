package dev.backstage.runtime.kafka;

import dev.backstage.runtime.spi.ConfigurationException;
import dev.backstage.runtime.spi.ProviderSettings;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * How the Kafka provider reaches and uses the cluster. Immutable; build with {@link #of(String)} and the
 * {@code with…} methods, or from neutral {@link ProviderSettings} with {@link #from(ProviderSettings)}.
 *
 * @param bootstrapServers   {@code host:port[,host:port…]} (a {@code kafka://} scheme is accepted and dropped)
 * @param prefix             topic and group prefix (default {@code backstage})
 * @param consumerGroup      the jobs consumer group (default {@code backstage-workers})
 * @param partitions         partitions of topics the provider creates (development default 1)
 * @param replicationFactor  replication factor of topics the provider creates (development default 1; 3 on a
 *                           production cluster of 3 or more brokers)
 * @param minInsyncReplicas  {@code min.insync.replicas} of topics the provider creates: how many replicas must
 *                           have a record before its produce (always {@code acks=all}) succeeds; 0 leaves it to the
 *                           broker's default (development default 0; 2 with replication factor 3)
 * @param revokeWait         on a rebalance, how long to wait for in-flight records of revoked partitions
 *                           to settle before committing what is settled and letting them go
 * @param commitInterval     how often settled offsets are committed while consuming
 * @param maxUncommittedPerPartition  a partition is paused once this many records sit behind its oldest
 *                           unsettled one, so one stuck record cannot make the worker hold unbounded state
 * @param topicMaxInFlight   unsettled messages per topic subscription
 * @param clientProperties   extra kafka-clients properties for every client (e.g. {@code security.protocol});
 *                           set through options prefixed {@code client.}
 * @param security           SASL credentials (from the URL's user-info) and TLS files; {@link KafkaSecurity#NONE}
 *                           for a plaintext cluster without authentication
 * @param createTopics       whether the provider creates a missing topic before first use (true by default). False
 *                           when something else owns the topics, as a BackstageTopology does for the operator's
 *                           pools: a missing topic is then an error that names it, and never a topic created with
 *                           the provider's partition count instead of the owner's.
 *
 * <p>Kept as one record: it is the provider's whole option surface (defaults, parsing of the URL and the options,
 * validation with one-line errors, the {@code with…} copies), long because the options are many, not because it mixes
 * concerns.
 */
public record KafkaSettings(
        String bootstrapServers,
        String prefix,
        String consumerGroup,
        int partitions,
        short replicationFactor,
        short minInsyncReplicas,
        Duration revokeWait,
        Duration commitInterval,
        int maxUncommittedPerPartition,
        int topicMaxInFlight,
        Map<String, String> clientProperties,
        KafkaSecurity security,
        boolean createTopics) {

    public static final String OPT_PARTITIONS = "partitions";
    public static final String OPT_REPLICATION_FACTOR = "replicationFactor";
    public static final String OPT_MIN_INSYNC_REPLICAS = "minInsyncReplicas";
    public static final String OPT_REVOKE_WAIT_MS = "revokeWaitMs";
    public static final String OPT_COMMIT_INTERVAL_MS = "commitIntervalMs";
    public static final String OPT_MAX_UNCOMMITTED = "maxUncommittedPerPartition";
    public static final String OPT_TOPIC_MAX_IN_FLIGHT = "topicMaxInFlight";
    public static final String OPT_CREATE_TOPICS = "createTopics";
    public static final String CLIENT_PREFIX = "client.";
    private static final Set<String> KNOWN = Set.of(
            OPT_PARTITIONS,
            OPT_REPLICATION_FACTOR,
            OPT_MIN_INSYNC_REPLICAS,
            OPT_REVOKE_WAIT_MS,
            OPT_COMMIT_INTERVAL_MS,
            OPT_MAX_UNCOMMITTED,
            OPT_TOPIC_MAX_IN_FLIGHT,
            OPT_CREATE_TOPICS);

    public KafkaSettings {
        Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        bootstrapServers = KafkaSecurity.hosts(bootstrapServers);
        if (bootstrapServers.isEmpty()) {
            throw new ConfigurationException("Kafka bootstrap servers must not be empty (host:port[,host:port])");
        }
        prefix = prefix == null || prefix.isBlank() ? ProviderSettings.DEFAULT_PREFIX : prefix;
        consumerGroup =
                consumerGroup == null || consumerGroup.isBlank() ? ProviderSettings.DEFAULT_GROUP : consumerGroup;
        require(partitions >= 1, "partitions must be >= 1, got " + partitions);
        require(replicationFactor >= 1, "replicationFactor must be >= 1, got " + replicationFactor);
        require(
                minInsyncReplicas >= 0,
                "minInsyncReplicas must be >= 0 (0: the broker's default), got " + minInsyncReplicas);
        require(
                minInsyncReplicas <= replicationFactor,
                "minInsyncReplicas " + minInsyncReplicas
                        + " is more than replicationFactor " + replicationFactor
                        + ": no produce could ever succeed; set"
                        + " minInsyncReplicas to at most the replication factor (2 with 3 replicas, 1 on a single broker)");
        Objects.requireNonNull(revokeWait, "revokeWait");
        Objects.requireNonNull(commitInterval, "commitInterval");
        require(!revokeWait.isNegative(), "revokeWaitMs must not be negative");
        require(!commitInterval.isNegative() && !commitInterval.isZero(), "commitIntervalMs must be positive");
        require(maxUncommittedPerPartition >= 1, "maxUncommittedPerPartition must be >= 1");
        require(topicMaxInFlight >= 1, "topicMaxInFlight must be >= 1");
        clientProperties = clientProperties == null ? Map.of() : Map.copyOf(clientProperties);
        security = security == null ? KafkaSecurity.NONE : security;
    }

    /**
     * Development defaults: 1 partition, replication factor 1 (min ISR the broker's), prefix {@code backstage}. On a
     * cluster of 3 or more brokers use {@link #withReplication withReplication(3, 2)}; the operator's topologies
     * default to that.
     */
    public static KafkaSettings of(String bootstrapServers) {
        return new KafkaSettings(
                bootstrapServers,
                null,
                null,
                1,
                (short) 1,
                (short) 0,
                Duration.ofSeconds(10),
                Duration.ofMillis(100),
                10_000,
                32,
                Map.of(),
                null,
                true);
    }

    /**
     * From neutral settings: {@code url} is the bootstrap list; options {@code partitions},
     * {@code replicationFactor}, {@code minInsyncReplicas}, {@code revokeWaitMs}, {@code commitIntervalMs},
     * {@code maxUncommittedPerPartition}, {@code topicMaxInFlight} and {@code client.<kafka property>}.
     * Any other option is a configuration error.
     */
    public static KafkaSettings from(ProviderSettings settings) {
        Map<String, String> options = settings.options();
        Set<String> unknown = new TreeSet<>();
        Map<String, String> client = new LinkedHashMap<>();
        for (var e : options.entrySet()) {
            if (e.getKey().startsWith(CLIENT_PREFIX) && e.getKey().length() > CLIENT_PREFIX.length()) {
                client.put(e.getKey().substring(CLIENT_PREFIX.length()), e.getValue());
            } else if (!KNOWN.contains(e.getKey()) && !KafkaSecurity.OPTIONS.contains(e.getKey())) {
                unknown.add(e.getKey());
            }
        }
        if (!unknown.isEmpty()) {
            throw new ConfigurationException(
                    "unknown Kafka provider option(s) " + unknown + "; known: " + new TreeSet<>(KNOWN) + ", "
                            + new TreeSet<>(KafkaSecurity.OPTIONS) + " and client.<kafka client property>");
        }
        KafkaSettings defaults = of(settings.url());
        return new KafkaSettings(
                settings.url(),
                settings.prefix(),
                settings.consumerGroup(),
                intOption(options, OPT_PARTITIONS, defaults.partitions()),
                (short) intOption(options, OPT_REPLICATION_FACTOR, defaults.replicationFactor()),
                (short) intOption(options, OPT_MIN_INSYNC_REPLICAS, defaults.minInsyncReplicas()),
                Duration.ofMillis(intOption(
                        options, OPT_REVOKE_WAIT_MS, (int) defaults.revokeWait().toMillis())),
                Duration.ofMillis(intOption(options, OPT_COMMIT_INTERVAL_MS, (int)
                        defaults.commitInterval().toMillis())),
                intOption(options, OPT_MAX_UNCOMMITTED, defaults.maxUncommittedPerPartition()),
                intOption(options, OPT_TOPIC_MAX_IN_FLIGHT, defaults.topicMaxInFlight()),
                client,
                KafkaSecurity.from(settings.url(), options),
                booleanOption(options, OPT_CREATE_TOPICS, true));
    }

    public KafkaSettings withPrefix(String value) {
        return new KafkaSettings(
                bootstrapServers,
                value,
                consumerGroup,
                partitions,
                replicationFactor,
                minInsyncReplicas,
                revokeWait,
                commitInterval,
                maxUncommittedPerPartition,
                topicMaxInFlight,
                clientProperties,
                security,
                createTopics);
    }

    public KafkaSettings withGroup(String value) {
        return new KafkaSettings(
                bootstrapServers,
                prefix,
                value,
                partitions,
                replicationFactor,
                minInsyncReplicas,
                revokeWait,
                commitInterval,
                maxUncommittedPerPartition,
                topicMaxInFlight,
                clientProperties,
                security,
                createTopics);
    }

    public KafkaSettings withPartitions(int value) {
        return new KafkaSettings(
                bootstrapServers,
                prefix,
                consumerGroup,
                value,
                replicationFactor,
                minInsyncReplicas,
                revokeWait,
                commitInterval,
                maxUncommittedPerPartition,
                topicMaxInFlight,
                clientProperties,
                security,
                createTopics);
    }

    public KafkaSettings withReplicationFactor(short value) {
        return new KafkaSettings(
                bootstrapServers,
                prefix,
                consumerGroup,
                partitions,
                value,
                (short) Math.min(minInsyncReplicas, value),
                revokeWait,
                commitInterval,
                maxUncommittedPerPartition,
                topicMaxInFlight,
                clientProperties,
                security,
                createTopics);
    }

    /** Replication factor and {@code min.insync.replicas} of the topics the provider creates, e.g. 3 and 2. */
    public KafkaSettings withReplication(int replicationFactor, int minInsyncReplicas) {
        return new KafkaSettings(
                bootstrapServers,
                prefix,
                consumerGroup,
                partitions,
                (short) replicationFactor,
                (short) minInsyncReplicas,
                revokeWait,
                commitInterval,
                maxUncommittedPerPartition,
                topicMaxInFlight,
                clientProperties,
                security,
                createTopics);
    }

    /** Topic configs for the topics the provider creates: {@code min.insync.replicas} when set. */
    Map<String, String> topicConfigs() {
        return minInsyncReplicas > 0 ? Map.of("min.insync.replicas", String.valueOf(minInsyncReplicas)) : Map.of();
    }

    public KafkaSettings withRevokeWait(Duration value) {
        return new KafkaSettings(
                bootstrapServers,
                prefix,
                consumerGroup,
                partitions,
                replicationFactor,
                minInsyncReplicas,
                value,
                commitInterval,
                maxUncommittedPerPartition,
                topicMaxInFlight,
                clientProperties,
                security,
                createTopics);
    }

    public KafkaSettings withCommitInterval(Duration value) {
        return new KafkaSettings(
                bootstrapServers,
                prefix,
                consumerGroup,
                partitions,
                replicationFactor,
                minInsyncReplicas,
                revokeWait,
                value,
                maxUncommittedPerPartition,
                topicMaxInFlight,
                clientProperties,
                security,
                createTopics);
    }

    public KafkaSettings withMaxUncommittedPerPartition(int value) {
        return new KafkaSettings(
                bootstrapServers,
                prefix,
                consumerGroup,
                partitions,
                replicationFactor,
                minInsyncReplicas,
                revokeWait,
                commitInterval,
                value,
                topicMaxInFlight,
                clientProperties,
                security,
                createTopics);
    }

    public KafkaSettings withClientProperties(Map<String, String> value) {
        return new KafkaSettings(
                bootstrapServers,
                prefix,
                consumerGroup,
                partitions,
                replicationFactor,
                minInsyncReplicas,
                revokeWait,
                commitInterval,
                maxUncommittedPerPartition,
                topicMaxInFlight,
                value,
                security,
                createTopics);
    }

    public KafkaSettings withSecurity(KafkaSecurity value) {
        return new KafkaSettings(
                bootstrapServers,
                prefix,
                consumerGroup,
                partitions,
                replicationFactor,
                minInsyncReplicas,
                revokeWait,
                commitInterval,
                maxUncommittedPerPartition,
                topicMaxInFlight,
                clientProperties,
                value,
                createTopics);
    }

    public KafkaSettings withCreateTopics(boolean value) {
        return new KafkaSettings(
                bootstrapServers,
                prefix,
                consumerGroup,
                partitions,
                replicationFactor,
                minInsyncReplicas,
                revokeWait,
                commitInterval,
                maxUncommittedPerPartition,
                topicMaxInFlight,
                clientProperties,
                security,
                value);
    }

    public KafkaNames names() {
        return new KafkaNames(prefix);
    }

    private static int intOption(Map<String, String> options, String key, int defaultValue) {
        String value = options.get(key);
        if (value == null || value.isBlank()) {
            return defaultValue;
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new ConfigurationException(
                    "Kafka provider option " + key + " must be an integer, got '" + value + "'");
        }
    }

    private static boolean booleanOption(Map<String, String> options, String key, boolean defaultValue) {
        String value = options.get(key);
        if (value == null || value.isBlank()) {
            return defaultValue;
        }
        return switch (value.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default ->
                throw new ConfigurationException(
                        "Kafka provider option " + key + " must be true or false, got '" + value + "'");
        };
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new ConfigurationException(message);
        }
    }
}
