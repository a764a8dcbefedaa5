package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How a RabbitMQ topology delays jobs. */
public enum DelayedExchangeMode {
    /** Use the delayed-message exchange plugin when the broker has it, else the built-in fallback. */
    @JsonProperty("auto")
    AUTO("auto"),
    /** Require the delayed-message exchange plugin; fail when the broker lacks it. */
    @JsonProperty("plugin")
    PLUGIN("plugin"),
    /** Always use the built-in fallback: per-delay-level TTL queues that dead-letter back into the work queue. */
    @JsonProperty("fallback")
    FALLBACK("fallback"),
    /** Use the delays capability supplied under {@code spec.capabilities.delays}. */
    @JsonProperty("supplied")
    SUPPLIED("supplied");

    private final String wire;

    DelayedExchangeMode(String wire) {
        this.wire = wire;
    }

    /** The value of the runtime's {@code delayedExchange} provider option. */
    public String wire() {
        return wire;
    }
}
