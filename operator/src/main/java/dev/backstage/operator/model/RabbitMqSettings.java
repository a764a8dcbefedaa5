package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;

/** RabbitMQ-only topology settings. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RabbitMqSettings {
    /** The provider option the runtime reads this setting from. */
    public static final String DELAYED_EXCHANGE_OPTION = "delayedExchange";

    @Default("auto")
    @JsonPropertyDescription("auto (plugin if present, else fallback) | plugin | fallback | supplied (spec.capabilities.delays).")
    private DelayedExchangeMode delayedExchange = DelayedExchangeMode.AUTO;

    public RabbitMqSettings() {}

    public RabbitMqSettings(DelayedExchangeMode delayedExchange) {
        this.delayedExchange = delayedExchange;
    }

    public DelayedExchangeMode getDelayedExchange() {
        return delayedExchange;
    }

    public void setDelayedExchange(DelayedExchangeMode delayedExchange) {
        this.delayedExchange = delayedExchange;
    }
}
