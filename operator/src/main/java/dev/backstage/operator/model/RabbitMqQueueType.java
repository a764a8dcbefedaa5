package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The type of a RabbitMQ topology's durable queues (fixed when a queue is created). */
public enum RabbitMqQueueType {
    /** Raft-replicated on every cluster node, with a broker-side delivery limit; the default for new topologies. */
    @JsonProperty("quorum")
    QUORUM("quorum"),
    /** One copy on one node: what topologies had before queue types existed. */
    @JsonProperty("classic")
    CLASSIC("classic");

    private final String wire;

    RabbitMqQueueType(String wire) {
        this.wire = wire;
    }

    /** The value of the runtime's {@code queueType} provider option. */
    public String wire() {
        return wire;
    }
}
