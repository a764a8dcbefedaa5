package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.backstage.runtime.spi.BrokerNames;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** A pub/sub topic of a topology. An object rather than a bare name so Kafka sizing has a place. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TopicSpec {
    @Required
    @Size(min = 1, max = BrokerNames.QUEUE_MAX_LENGTH)
    @ValidationRule(value = BrokerNameRules.QUEUE, message = BrokerNameRules.QUEUE_MESSAGE)
    @ValidationRule(value = BrokerNameRules.NOT_RESERVED, message = BrokerNameRules.NOT_RESERVED_MESSAGE)
    @JsonPropertyDescription("Topic name (prefixed with keyPrefix on the broker).")
    private String name;

    @Min(1)
    @JsonPropertyDescription("Kafka only: partition count (default 1).")
    private Integer partitions;

    @Min(1)
    @JsonPropertyDescription("Kafka only: replication factor (default 1).")
    private Integer replicationFactor;

    public TopicSpec() {}

    public TopicSpec(String name) {
        this.name = name;
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
