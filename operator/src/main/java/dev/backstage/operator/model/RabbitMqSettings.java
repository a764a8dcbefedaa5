package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.ValidationRule;

/** RabbitMQ-only topology settings. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "!has(self.delayedExchange) || self.delayedExchange != 'plugin'"
                + " || (has(self.pluginInstalled) && self.pluginInstalled)",
        message =
                "delayedExchange 'plugin' needs the broker's rabbitmq_delayed_message_exchange plugin: confirm it with"
                        + " pluginInstalled: true, or use auto or fallback")
public class RabbitMqSettings {
    /** The provider option the runtime reads this setting from. */
    public static final String DELAYED_EXCHANGE_OPTION = "delayedExchange";

    public static final String QUEUE_TYPE_OPTION = "queueType";
    public static final String DELIVERY_LIMIT_OPTION = "deliveryLimit";
    public static final String ADDRESSES_OPTION = "addresses";
    public static final String MANAGEMENT_URL_OPTION = "managementUrl";
    /** The admission message for a managementUrl that is not a list of http(s) roots or carries credentials. */
    public static final String MANAGEMENT_URL_FORM = "rabbitmq.managementUrl takes http(s)://host:port roots separated"
            + " by commas, without credentials (the connection Secret's are used), e.g. http://rabbitmq-0.rabbitmq:15672";

    @Default("auto")
    @JsonPropertyDescription(
            "auto (plugin if present, else fallback) | plugin | fallback | supplied (spec.capabilities.delays).")
    private DelayedExchangeMode delayedExchange = DelayedExchangeMode.AUTO;

    /*
     * Admission cannot see the broker, and a webhook that dialled brokers would make every apply as slow and as
     * fragile as the broker. So 'plugin' (fail rather than fall back) is accepted only when the user states that the
     * plugin is installed; the topology reconciler then checks it for real (Ready=False when it is absent).
     */
    @JsonPropertyDescription(
            "With delayedExchange plugin: set true to confirm the broker has the rabbitmq_delayed_message_exchange"
                    + " plugin (admission cannot see the broker; the operator checks it when it declares the topology).")
    private Boolean pluginInstalled;

    /*
     * No schema default on purpose: the API server applies defaults when it reads stored objects, so a default here
     * would silently turn topologies created before this field into quorum ones while their queues are classic.
     * Unset means quorum for the queues the operator creates; see effectiveQueueType().
     */
    @JsonPropertyDescription("quorum (default: replicated on every node, broker delivery limit) | classic. Fixed when"
            + " queues are created: to change it, create a new topology with another keyPrefix and move to it.")
    private RabbitMqQueueType queueType;

    @io.fabric8.generator.annotation.Min(1)
    @JsonPropertyDescription("Quorum queues: how often the broker hands out a job whose worker dies before settling it"
            + " before it moves the job to the dead-letter queue (default 20). Failures the worker reports follow the"
            + " pool's maxDeliveries instead.")
    private Integer deliveryLimit;

    @JsonPropertyDescription(
            "A cluster's nodes as host:port,host:port: workers and the operator connect to any of them"
                    + " and reconnect to another when one fails (the connection Secret's URL still gives credentials and vhost).")
    private String addresses;

    /*
     * The backlog probe reads ready and unacked counts from the management API. By default it asks port 15672 of the
     * URL's host or of every host in addresses; a cluster whose API is elsewhere (another port, a Service, https)
     * names it here. Credentials stay in the connection Secret: a URL with user-info would put them in the spec.
     */
    @ValidationRule(
            value = "self.matches('^https?://[^,@/\\\\s]+[^,@\\\\s]*(,\\\\s*https?://[^,@/\\\\s]+[^,@\\\\s]*)*$')",
            message = MANAGEMENT_URL_FORM)
    @JsonPropertyDescription("The management API the operator reads the backlog from, one root per node separated by"
            + " commas (asked in turn when one does not answer), without credentials; default port 15672 of the URL's"
            + " host or of every host in addresses.")
    private String managementUrl;

    public RabbitMqSettings() {}

    /** Quorum unless the topology says classic (also when it has no rabbitmq section at all). */
    public static RabbitMqQueueType effectiveQueueType(RabbitMqSettings rabbit) {
        return rabbit == null || rabbit.queueType == null ? RabbitMqQueueType.QUORUM : rabbit.queueType;
    }

    /** The runtime's provider options for a RabbitMQ topology with these settings (null: none given). */
    public static java.util.Map<String, String> providerOptions(RabbitMqSettings rabbit) {
        java.util.Map<String, String> options = new java.util.TreeMap<>();
        options.put(QUEUE_TYPE_OPTION, effectiveQueueType(rabbit).wire());
        if (rabbit != null) {
            if (rabbit.delayedExchange != null) {
                options.put(DELAYED_EXCHANGE_OPTION, rabbit.delayedExchange.wire());
            }
            if (rabbit.deliveryLimit != null) {
                options.put(DELIVERY_LIMIT_OPTION, String.valueOf(rabbit.deliveryLimit));
            }
            if (rabbit.addresses != null && !rabbit.addresses.isBlank()) {
                options.put(ADDRESSES_OPTION, rabbit.addresses);
            }
            if (rabbit.managementUrl != null && !rabbit.managementUrl.isBlank()) {
                options.put(MANAGEMENT_URL_OPTION, rabbit.managementUrl);
            }
        }
        return options;
    }

    public RabbitMqQueueType getQueueType() {
        return queueType;
    }

    public void setQueueType(RabbitMqQueueType queueType) {
        this.queueType = queueType;
    }

    public Integer getDeliveryLimit() {
        return deliveryLimit;
    }

    public void setDeliveryLimit(Integer deliveryLimit) {
        this.deliveryLimit = deliveryLimit;
    }

    public String getAddresses() {
        return addresses;
    }

    public void setAddresses(String addresses) {
        this.addresses = addresses;
    }

    public String getManagementUrl() {
        return managementUrl;
    }

    public void setManagementUrl(String managementUrl) {
        this.managementUrl = managementUrl;
    }

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
