package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.backstage.runtime.spi.BrokerNames;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** A jobs queue of a topology: a Redis stream, a RabbitMQ queue or a Kafka topic (each with a dead-letter twin). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class QueueSpec {
    @Required
    @Size(min = 1, max = BrokerNames.QUEUE_MAX_LENGTH)
    @ValidationRule(value = BrokerNameRules.QUEUE, message = BrokerNameRules.QUEUE_MESSAGE)
    @ValidationRule(value = BrokerNameRules.NOT_RESERVED, message = BrokerNameRules.NOT_RESERVED_MESSAGE)
    @JsonPropertyDescription(
            "Queue name; the broker object is <keyPrefix>:<name> (Redis) or <keyPrefix>.<name> (RabbitMQ, Kafka).")
    private String name;

    @Min(1)
    @JsonPropertyDescription(
            "Kafka only: partition count of the queue's topic (default 1). Caps useful worker replicas.")
    private Integer partitions;

    @Min(1)
    @JsonPropertyDescription("Kafka only: replication factor of the queue's topic (default 1).")
    private Integer replicationFactor;

    public QueueSpec() {}

    public QueueSpec(String name, Integer partitions, Integer replicationFactor) {
        this.name = name;
        this.partitions = partitions;
        this.replicationFactor = replicationFactor;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public Integer getPartitions() {
        return partitions;
    }

    public void setPartitions(Integer partitions) {
        this.partitions = partitions;
    }

    public Integer getReplicationFactor() {
        return replicationFactor;
    }

    public void setReplicationFactor(Integer replicationFactor) {
        this.replicationFactor = replicationFactor;
    }
}
