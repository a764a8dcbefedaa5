package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.ValidationRule;

/** RabbitMQ-only topology settings. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.delayedExchange) || self.delayedExchange != 'plugin'"
        + " || (has(self.pluginInstalled) && self.pluginInstalled)",
        message = "delayedExchange 'plugin' needs the broker's rabbitmq_delayed_message_exchange plugin: confirm it with"
                + " pluginInstalled: true, or use auto or fallback")
public class RabbitMqSettings {
    /** The provider option the runtime reads this setting from. */
    public static final String DELAYED_EXCHANGE_OPTION = "delayedExchange";

    @Default("auto")
    @JsonPropertyDescription("auto (plugin if present, else fallback) | plugin | fallback | supplied (spec.capabilities.delays).")
    private DelayedExchangeMode delayedExchange = DelayedExchangeMode.AUTO;

    /*
     * Admission cannot see the broker, and a webhook that dialled brokers would make every apply as slow and as
     * fragile as the broker. So 'plugin' (fail rather than fall back) is accepted only when the user states that the
     * plugin is installed; the topology reconciler then checks it for real (Ready=False when it is absent).
     */
    @JsonPropertyDescription("With delayedExchange plugin: set true to confirm the broker has the rabbitmq_delayed_message_exchange"
            + " plugin (admission cannot see the broker; the operator checks it when it declares the topology).")
    private Boolean pluginInstalled;

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

    public Boolean getPluginInstalled() {
        return pluginInstalled;
    }

    public void setPluginInstalled(Boolean pluginInstalled) {
        this.pluginInstalled = pluginInstalled;
    }
}
