package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * Kafka-only topology settings: how the topics are replicated. The defaults suit a production cluster of 3 or more
 * brokers (replication factor 3, {@code min.insync.replicas} 2: a produce, always {@code acks=all}, is safe on two
 * brokers and the topic keeps taking writes with one broker down); a single-broker development cluster sets
 * {@code replicationFactor: 1} explicitly.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "!has(self.minInsyncReplicas) || self.minInsyncReplicas <= self.replicationFactor"
                + " || !has(self.replicationFactor)",
        message = "kafka.minInsyncReplicas must not exceed kafka.replicationFactor: no produce could succeed")
public class KafkaTopologySettings {
    /** The topology's replication factor when none is given. */
    public static final int DEFAULT_REPLICATION_FACTOR = 3;
    /** The provider options the runtime reads these settings from. */
    public static final String REPLICATION_FACTOR_OPTION = "replicationFactor";

    public static final String MIN_INSYNC_REPLICAS_OPTION = "minInsyncReplicas";

    @Min(1)
    @Max(32)
    @JsonPropertyDescription("Replication factor of every topic the topology creates, unless a queue or topic sets its"
            + " own (default 3; at most the number of brokers: set 1 for a single-broker development cluster).")
    private Integer replicationFactor;

    @Min(1)
    @Max(32)
    @JsonPropertyDescription("min.insync.replicas of every topic the topology creates: replicas that must have a record"
            + " before its produce succeeds (default 2 with replication factor 3, 1 with 1 or 2).")
    private Integer minInsyncReplicas;

    public KafkaTopologySettings() {}

    public KafkaTopologySettings(Integer replicationFactor, Integer minInsyncReplicas) {
        this.replicationFactor = replicationFactor;
        this.minInsyncReplicas = minInsyncReplicas;
    }

    /** The replication factor of {@code kafka} (may be null), default 3. */
    public static int replicationFactorOf(KafkaTopologySettings kafka) {
        return kafka == null || kafka.replicationFactor == null ? DEFAULT_REPLICATION_FACTOR : kafka.replicationFactor;
    }

    /** The min ISR of {@code kafka} (may be null): as set, else 2 with 3 or more replicas and 1 below. */
    public static int minInsyncReplicasOf(KafkaTopologySettings kafka) {
        if (kafka != null && kafka.minInsyncReplicas != null) {
            return kafka.minInsyncReplicas;
        }
        return Math.max(1, Math.min(2, replicationFactorOf(kafka) - 1));
    }

    /**
     * A topology's replication as provider options, so that every topic its provider and its workers create (retry,
     * dead-letter and group topics too) gets it. Empty for providers other than Kafka.
     */
    public static java.util.Map<String, String> providerOptions(BackstageTopologySpec spec) {
        if (spec.getProvider() != ProviderType.KAFKA) {
            return java.util.Map.of();
        }
        return java.util.Map.of(
                REPLICATION_FACTOR_OPTION,
                String.valueOf(replicationFactorOf(spec.getKafka())),
                MIN_INSYNC_REPLICAS_OPTION,
                String.valueOf(minInsyncReplicasOf(spec.getKafka())));
    }

    public Integer getReplicationFactor() {
        return replicationFactor;
    }

    public void setReplicationFactor(Integer replicationFactor) {
        this.replicationFactor = replicationFactor;
    }

    public Integer getMinInsyncReplicas() {
        return minInsyncReplicas;
    }

    public void setMinInsyncReplicas(Integer minInsyncReplicas) {
        this.minInsyncReplicas = minInsyncReplicas;
    }
}
