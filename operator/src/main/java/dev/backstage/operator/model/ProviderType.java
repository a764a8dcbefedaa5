package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/** A broker that supplies jobs (and possibly topics, delays, dedupe): the runtime's provider names. */
public enum ProviderType {
    @JsonProperty("redis")
    REDIS("redis"),
    @JsonProperty("rabbitmq")
    RABBITMQ("rabbitmq"),
    @JsonProperty("kafka")
    KAFKA("kafka");

    private final String wire;

    ProviderType(String wire) {
        this.wire = wire;
    }

    /** The name the runtime's {@code ProviderFactory} answers to. */
    public String wire() {
        return wire;
    }
}
