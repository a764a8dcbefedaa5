package dev.backstage.operator.topology;

import dev.backstage.operator.broker.ConnectionSecrets;
import dev.backstage.operator.broker.TopologyProblem;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageTopologySpec;
import dev.backstage.operator.model.KafkaTopologySettings;
import dev.backstage.operator.model.ProviderType;
import dev.backstage.operator.model.QueueSpec;
import dev.backstage.operator.model.RabbitMqSettings;
import dev.backstage.operator.model.ReadyReason;
import dev.backstage.operator.model.TopicSpec;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.TopologyRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a topology asks of its provider, in the runtime's neutral terms: the provider settings (minus the URL,
 * which comes from the Secret) and the declarer's request.
 *
 * @param provider  the runtime's provider name
 * @param options   provider options (e.g. RabbitMQ's {@code delayedExchange})
 */
public record TopologyPlan(
        String provider, String prefix, String consumerGroup, Map<String, String> options, TopologyRequest request) {

    /**
     * @throws TopologyProblem {@link ReadyReason#INVALID_SPEC} for a spec the schema should have refused
     */
    public static TopologyPlan of(BackstageTopology topology) throws TopologyProblem {
        BackstageTopologySpec spec = topology.getSpec();
        if (spec == null || spec.getProvider() == null) {
            throw new TopologyProblem(
                    ReadyReason.INVALID_SPEC, "spec.provider is not set; use redis, rabbitmq or kafka");
        }
        if (spec.getQueues() == null || spec.getQueues().isEmpty()) {
            throw new TopologyProblem(ReadyReason.INVALID_SPEC, "spec.queues is empty; declare at least one queue");
        }
        boolean kafka = spec.getProvider() == ProviderType.KAFKA;
        short defaultReplication = (short) (kafka ? KafkaTopologySettings.replicationFactorOf(spec.getKafka()) : 1);
        List<TopologyRequest.QueueSpec> queues =
                spec.getQueues().stream().map(q -> queue(q, defaultReplication)).toList();
        List<String> topics = spec.getTopics() == null
                ? List.of()
                : spec.getTopics().stream().map(TopicSpec::getName).toList();
        List<TopologyRequest.QueueSpec> topicSizing = spec.getTopics() == null
                ? List.of()
                : spec.getTopics().stream()
                        .map(t -> new TopologyRequest.QueueSpec(
                                t.getName(), t.getPartitions() == null ? 0 : t.getPartitions(), (short)
                                        (t.getReplicationFactor() == null ? 0 : t.getReplicationFactor())))
                        .toList();
        boolean deadLetter = !Boolean.FALSE.equals(spec.getDeadLetter());
        Map<String, String> options = new TreeMap<>();
        RabbitMqSettings rabbit = spec.getRabbitmq();
        if (spec.getProvider() == ProviderType.RABBITMQ) {
            options.putAll(RabbitMqSettings.providerOptions(rabbit));
        }
        options.putAll(dev.backstage.operator.model.RedisTopologySettings.options(spec));
        options.putAll(KafkaTopologySettings.providerOptions(spec));
        return new TopologyPlan(
                spec.getProvider().wire(),
                spec.getKeyPrefix(),
                spec.getConsumerGroup(),
                Map.copyOf(options),
                new TopologyRequest(queues, topics, deadLetter, groupOrDefault(spec), topicSizing));
    }

    public ProviderSettings providerSettings(String url) {
        return new ProviderSettings(provider, url, prefix, consumerGroup, options);
    }

    /** With the TLS options naming the operator's copy of the tls section's files. */
    public ProviderSettings providerSettings(String url, Map<String, String> tlsOptions) {
        Map<String, String> all = new TreeMap<>(options);
        all.putAll(tlsOptions);
        return new ProviderSettings(provider, url, prefix, consumerGroup, all);
    }

    /**
     * Identifies the connection a provider was opened with: the Secret's version, a digest of the URL (in case a
     * store does not bump versions) and the non-secret settings. Safe to keep: it holds no credential.
     */
    public String fingerprint(ConnectionSecrets.ResolvedSecret secret) {
        return provider + "|" + prefix + "|" + consumerGroup + "|" + new TreeMap<>(options) + "|"
                + secret.resourceVersion() + "|" + sha256(secret.url());
    }

    private static TopologyRequest.QueueSpec queue(QueueSpec q, short defaultReplication) {
        int partitions = q.getPartitions() == null ? 1 : q.getPartitions();
        short replicationFactor = q.getReplicationFactor() == null
                ? defaultReplication
                : q.getReplicationFactor().shortValue();
        return new TopologyRequest.QueueSpec(q.getName(), partitions, replicationFactor);
    }

    private static String groupOrDefault(BackstageTopologySpec spec) {
        return spec.getConsumerGroup() == null || spec.getConsumerGroup().isBlank()
                ? ProviderSettings.DEFAULT_GROUP
                : spec.getConsumerGroup();
    }

    private static String sha256(String value) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }
}
