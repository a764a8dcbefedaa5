package dev.backstage.runtime.redis;

import dev.backstage.runtime.spi.BrokerTls;
import dev.backstage.runtime.spi.BrokerUrl;
import dev.backstage.runtime.spi.ConfigurationException;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Redaction;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

/**
 * Redis Streams provider settings. Defaults are the seed's where they matter for interoperability
 * (prefix, group, idle threshold) and tighter where they only affect latency.
 *
 * @param idleTimeout        a pending entry with no failure record is taken from another consumer only
 *                           after this idle time (the seed's 60 s): it may still be running there
 * @param reclaimInterval    how often the reclaimer looks for such entries and for dead workers' entries (1 s);
 *                           the heartbeat is written as often (at most a third of {@code deadWorkerTimeout})
 * @param blockTimeout       how long one XREADGROUP blocks when the streams are empty
 * @param ackFlushInterval   acks are batched per stream and flushed this often, or at {@code ackBatchSize}
 * @param promotionInterval  how often due delayed jobs are promoted (keeps lateness well under 1 s)
 * @param tls                CA bundle and client certificate for {@code rediss://} (options tlsCaFile, tlsCertFile,
 *                           tlsKeyFile); null for the JDK's default roots and no client certificate
 * @param deadWorkerTimeout  a Java worker that has not written its heartbeat for this long is dead: its
 *                           pending entries are taken at once instead of after {@code idleTimeout}
 * @param mode               standalone, cluster or sentinel ({@link RedisMode}); null = what the URL's scheme says
 * @param replicaWait        replicas that must hold an enqueue or settlement before it is done (options
 *                           waitReplicas, waitTimeoutMs; {@link ReplicaWait})
 *
 * <p>Kept as one record: it is the provider's whole option surface (defaults, parsing of the URL and the options,
 * validation with one-line errors, the {@code with…} copies), long because the options are many, not because it mixes
 * concerns.
 */
public record RedisSettings(
        String uri,
        String prefix,
        String consumerGroup,
        Duration idleTimeout,
        Duration reclaimInterval,
        Duration blockTimeout,
        boolean deleteOnAck,
        int ackBatchSize,
        Duration ackFlushInterval,
        Duration promotionInterval,
        int promotionBatch,
        Duration deadWorkerTimeout,
        BrokerTls tls,
        RedisMode mode,
        ReplicaWait replicaWait) {

    private static final Set<String> OPTIONS = Set.of(
            "idleTimeoutMs",
            "reclaimIntervalMs",
            "blockTimeoutMs",
            "deleteOnAck",
            "ackBatchSize",
            "ackFlushIntervalMs",
            "promotionIntervalMs",
            "promotionBatch",
            "deadWorkerTimeoutMs",
            "mode",
            "waitReplicas",
            "waitTimeoutMs",
            BrokerTls.OPT_CA_FILE,
            BrokerTls.OPT_CERT_FILE,
            BrokerTls.OPT_KEY_FILE);

    public RedisSettings {
        mode = RedisMode.resolve(uri, mode);
        if (replicaWait == null) {
            replicaWait = ReplicaWait.OFF;
        }
        // Strict parsing for every mode; a Sentinel URL's '#master' is lettuce's syntax, checked by RedisMode.
        int hash = uri.indexOf('#');
        String checked = mode == RedisMode.SENTINEL && hash >= 0 ? uri.substring(0, hash) : uri;
        BrokerUrl parsed = BrokerUrl.parse(
                checked, RedisMode.ofScheme(uri) == RedisMode.STANDALONE ? BrokerUrl.REDIS : BrokerUrl.REDIS_NODES);
        if (!parsed.path().isEmpty() && !parsed.path().matches("(/[0-9]{0,2})?(\\?.*)?")) {
            throw new ConfigurationException(
                    "the redis URL's path must be a database number, e.g. redis://host:6379/0");
        }
        if (tls != null && !parsed.scheme().startsWith("rediss")) {
            throw new ConfigurationException(
                    "TLS files are set but the Redis URL is not rediss://; use rediss://host:port");
        }
        positive(idleTimeout, "idleTimeout");
        positive(reclaimInterval, "reclaimInterval");
        positive(blockTimeout, "blockTimeout");
        positive(ackFlushInterval, "ackFlushInterval");
        positive(promotionInterval, "promotionInterval");
        positive(deadWorkerTimeout, "deadWorkerTimeout");
        if (ackBatchSize < 1 || promotionBatch < 1) {
            throw new ConfigurationException("ackBatchSize and promotionBatch must be >= 1");
        }
    }

    private static void positive(Duration value, String name) {
        if (value == null || value.isZero() || value.isNegative()) {
            throw new ConfigurationException(name + " must be a positive duration, got " + value);
        }
    }

    public static RedisSettings of(String uri) {
        return new RedisSettings(
                uri,
                ProviderSettings.DEFAULT_PREFIX,
                ProviderSettings.DEFAULT_GROUP,
                Duration.ofSeconds(60),
                Duration.ofSeconds(1),
                Duration.ofSeconds(1),
                false,
                100,
                Duration.ofMillis(50),
                Duration.ofMillis(100),
                500,
                Duration.ofSeconds(10),
                null,
                null,
                ReplicaWait.OFF);
    }

    public static RedisSettings from(ProviderSettings settings) {
        for (String key : settings.options().keySet()) {
            if (!OPTIONS.contains(key)) {
                throw new ConfigurationException("unknown redis option '" + key + "'; known: " + OPTIONS);
            }
        }
        Map<String, String> o = settings.options();
        RedisSettings d = of(settings.url());
        return new RedisSettings(
                settings.url(),
                settings.prefix(),
                settings.consumerGroup(),
                ms(o, "idleTimeoutMs", d.idleTimeout),
                ms(o, "reclaimIntervalMs", d.reclaimInterval),
                ms(o, "blockTimeoutMs", d.blockTimeout),
                Boolean.parseBoolean(o.getOrDefault("deleteOnAck", "false")),
                Integer.parseInt(o.getOrDefault("ackBatchSize", "100")),
                ms(o, "ackFlushIntervalMs", d.ackFlushInterval),
                ms(o, "promotionIntervalMs", d.promotionInterval),
                Integer.parseInt(o.getOrDefault("promotionBatch", "500")),
                ms(o, "deadWorkerTimeoutMs", d.deadWorkerTimeout),
                BrokerTls.from(o).orElse(null),
                o.containsKey("mode") ? RedisMode.parse(o.get("mode")) : null,
                new ReplicaWait(integer(o, "waitReplicas", 0), ms(o, "waitTimeoutMs", Duration.ofSeconds(1))));
    }

    private static int integer(Map<String, String> options, String key, int fallback) {
        String value = options.get(key);
        try {
            return value == null ? fallback : Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new ConfigurationException("redis option " + key + " must be a whole number, got '" + value + "'");
        }
    }

    private static Duration ms(Map<String, String> options, String key, Duration fallback) {
        String value = options.get(key);
        try {
            return value == null ? fallback : Duration.ofMillis(Long.parseLong(value));
        } catch (NumberFormatException e) {
            throw new ConfigurationException("redis option " + key + " must be milliseconds, got '" + value + "'");
        }
    }

    public RedisSettings withPrefix(String value) {
        return new RedisSettings(
                uri,
                value,
                consumerGroup,
                idleTimeout,
                reclaimInterval,
                blockTimeout,
                deleteOnAck,
                ackBatchSize,
                ackFlushInterval,
                promotionInterval,
                promotionBatch,
                deadWorkerTimeout,
                tls,
                mode,
                replicaWait);
    }

    public RedisSettings withGroup(String value) {
        return new RedisSettings(
                uri,
                prefix,
                value,
                idleTimeout,
                reclaimInterval,
                blockTimeout,
                deleteOnAck,
                ackBatchSize,
                ackFlushInterval,
                promotionInterval,
                promotionBatch,
                deadWorkerTimeout,
                tls,
                mode,
                replicaWait);
    }

    public RedisSettings withIdleTimeout(Duration value) {
        return new RedisSettings(
                uri,
                prefix,
                consumerGroup,
                value,
                reclaimInterval,
                blockTimeout,
                deleteOnAck,
                ackBatchSize,
                ackFlushInterval,
                promotionInterval,
                promotionBatch,
                deadWorkerTimeout,
                tls,
                mode,
                replicaWait);
    }

    public RedisSettings withReclaimInterval(Duration value) {
        return new RedisSettings(
                uri,
                prefix,
                consumerGroup,
                idleTimeout,
                value,
                blockTimeout,
                deleteOnAck,
                ackBatchSize,
                ackFlushInterval,
                promotionInterval,
                promotionBatch,
                deadWorkerTimeout,
                tls,
                mode,
                replicaWait);
    }

    public RedisSettings withDeleteOnAck(boolean value) {
        return new RedisSettings(
                uri,
                prefix,
                consumerGroup,
                idleTimeout,
                reclaimInterval,
                blockTimeout,
                value,
                ackBatchSize,
                ackFlushInterval,
                promotionInterval,
                promotionBatch,
                deadWorkerTimeout,
                tls,
                mode,
                replicaWait);
    }

    public RedisSettings withAckBatching(int batchSize, Duration flushInterval) {
        return new RedisSettings(
                uri,
                prefix,
                consumerGroup,
                idleTimeout,
                reclaimInterval,
                blockTimeout,
                deleteOnAck,
                batchSize,
                flushInterval,
                promotionInterval,
                promotionBatch,
                deadWorkerTimeout,
                tls,
                mode,
                replicaWait);
    }

    public RedisSettings withTls(BrokerTls value) {
        return new RedisSettings(
                uri,
                prefix,
                consumerGroup,
                idleTimeout,
                reclaimInterval,
                blockTimeout,
                deleteOnAck,
                ackBatchSize,
                ackFlushInterval,
                promotionInterval,
                promotionBatch,
                deadWorkerTimeout,
                value,
                mode,
                replicaWait);
    }

    public RedisSettings withDeadWorkerTimeout(Duration value) {
        return new RedisSettings(
                uri,
                prefix,
                consumerGroup,
                idleTimeout,
                reclaimInterval,
                blockTimeout,
                deleteOnAck,
                ackBatchSize,
                ackFlushInterval,
                promotionInterval,
                promotionBatch,
                value,
                tls,
                mode,
                replicaWait);
    }

    public RedisSettings withMode(RedisMode value) {
        return new RedisSettings(
                uri,
                prefix,
                consumerGroup,
                idleTimeout,
                reclaimInterval,
                blockTimeout,
                deleteOnAck,
                ackBatchSize,
                ackFlushInterval,
                promotionInterval,
                promotionBatch,
                deadWorkerTimeout,
                tls,
                value,
                replicaWait);
    }

    public RedisSettings withReplicaWait(int replicas, Duration timeout) {
        return new RedisSettings(
                uri,
                prefix,
                consumerGroup,
                idleTimeout,
                reclaimInterval,
                blockTimeout,
                deleteOnAck,
                ackBatchSize,
                ackFlushInterval,
                promotionInterval,
                promotionBatch,
                deadWorkerTimeout,
                tls,
                mode,
                new ReplicaWait(replicas, timeout));
    }

    public String redactedUri() {
        return Redaction.url(uri);
    }
}
