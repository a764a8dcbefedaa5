package dev.backstage.runtime.config;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;

/**
 * The runtime's configuration file ({@code runtime.yaml}): what the operator renders into a pool's
 * ConfigMap and the container main reads. It never holds credentials: each connection names the
 * environment variable that carries its URL (filled from a Secret by the Deployment).
 *
 * <p>This record is the contract between the operator and the runtime; both sides use this class.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = false)
public record RuntimeConfig(
        Connection provider, Connection delays, Connection dedupe, WorkerSection worker, Server server) {

    /**
     * A broker connection.
     *
     * @param name    provider or backend name: {@code redis}, {@code rabbitmq}, {@code kafka}
     * @param urlEnv  environment variable holding the URL (default {@code BACKSTAGE_<ROLE>_URL})
     * @param url     a literal URL, for local runs only (the operator never renders one)
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Connection(
            String name, String urlEnv, String url, String prefix, String consumerGroup, Map<String, String> options) {}

    /** Worker settings; durations in milliseconds. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record WorkerSection(
            List<String> queues,
            List<TopicSubscription> topics,
            Integer concurrency,
            Integer prefetch,
            Integer maxDeliveries,
            BackoffSection backoff,
            Long hardTimeoutMs,
            Long shutdownGraceMs,
            String unknownTask) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record TopicSubscription(String topic, String group, String start) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record BackoffSection(String type, Long delayMs, Long maxDelayMs) {}

    /** The health and metrics HTTP port. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Server(Integer port) {}
}
