package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.backstage.runtime.spi.BrokerNames;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** A pool's subscription to a topology topic: every group gets every message once. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TopicSubscriptionSpec {
    @Required
    @Size(min = 1, max = BrokerNames.QUEUE_MAX_LENGTH)
    @ValidationRule(value = BrokerNameRules.QUEUE, message = BrokerNameRules.QUEUE_MESSAGE)
    @ValidationRule(value = BrokerNameRules.NOT_RESERVED, message = BrokerNameRules.NOT_RESERVED_MESSAGE)
    @JsonPropertyDescription("A topic declared by the topology.")
    private String topic;

    @Required
    @Size(min = 1, max = BrokerNames.GROUP_MAX_LENGTH)
    @ValidationRule(value = BrokerNameRules.GROUP, message = BrokerNameRules.GROUP_MESSAGE)
    @JsonPropertyDescription("Subscription group; replicas of the pool share it.")
    private String group;

    @Default("latest")
    @JsonPropertyDescription("earliest | latest: where a new group starts reading.")
    private StartPositionSpec start = StartPositionSpec.LATEST;

    public TopicSubscriptionSpec() {}

    public TopicSubscriptionSpec(String topic, String group, StartPositionSpec start) {
        this.topic = topic;
        this.group = group;
        this.start = start;
    }

    public String getTopic() {
        return topic;
    }

    public void setTopic(String topic) {
        this.topic = topic;
    }

    public String getGroup() {
        return group;
    }

    public void setGroup(String group) {
        this.group = group;
    }

    public StartPositionSpec getStart() {
        return start;
    }

    public void setStart(StartPositionSpec start) {
        this.start = start;
    }
}
