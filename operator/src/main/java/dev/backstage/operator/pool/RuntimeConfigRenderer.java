package dev.backstage.operator.pool;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageTopologySpec;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolSpec;
import dev.backstage.operator.model.CapabilityBackend;
import dev.backstage.operator.model.KafkaTopologySettings;
import dev.backstage.operator.model.ProviderType;
import dev.backstage.operator.model.RabbitMqSettings;
import dev.backstage.operator.model.RetryBackoffSpec;
import dev.backstage.operator.model.SuppliedCapabilities;
import dev.backstage.operator.model.TopicSubscriptionSpec;
import dev.backstage.operator.workload.WorkerContainer;
import dev.backstage.runtime.config.Durations;
import dev.backstage.runtime.config.RuntimeConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Turns a pool and its topology into the runtime's {@link RuntimeConfig}. Connections name env vars
 * ({@link WorkerContainer}) instead of URLs: the Deployment fills those from Secrets, so no credential ever
 * reaches the ConfigMap.
 */
public final class RuntimeConfigRenderer {
    private RuntimeConfigRenderer() {}

    public static RuntimeConfig render(BackstageWorkerPool pool, BackstageTopology topology) {
        BackstageTopologySpec broker = topology.getSpec();
        BackstageWorkerPoolSpec spec = pool.getSpec();
        RuntimeConfig.Connection provider = new RuntimeConfig.Connection(
                broker.getProvider().wire(),
                WorkerContainer.PROVIDER_URL_ENV,
                null,
                broker.getKeyPrefix(),
                broker.getConsumerGroup(),
                providerOptions(broker));
        SuppliedCapabilities supplied = broker.getCapabilities();
        RuntimeConfig.Connection delays = supplied == null
                ? null
                : capability(supplied.getDelays(), WorkerContainer.DELAYS_URL_ENV, DELAYS_ROLE, broker);
        RuntimeConfig.Connection dedupe = supplied == null
                ? null
                : capability(supplied.getDedupe(), WorkerContainer.DEDUPE_URL_ENV, DEDUPE_ROLE, broker);
        RuntimeConfig.WorkerSection worker = new RuntimeConfig.WorkerSection(
                spec.getQueues() == null ? null : List.copyOf(spec.getQueues()),
                topics(spec.getTopics()),
                spec.getConcurrency(),
                spec.getPrefetch(),
                // The runtime's maxDeliveries counts retries (docs/wire-format.md), as spec.maxRetries does.
                spec.effectiveMaxRetries(),
                backoff(spec.getRetryBackoff()),
                millis("spec.hardTimeout", spec.getHardTimeout()),
                shutdownGrace(pool).toMillis(),
                spec.getUnknownTask() == null ? null : spec.getUnknownTask().wire());
        return new RuntimeConfig(provider, delays, dedupe, worker, new RuntimeConfig.Server(WorkerContainer.HTTP_PORT));
    }

    /** The pool's shutdown grace (default 30 s, the schema default). */
    public static Duration shutdownGrace(BackstageWorkerPool pool) {
        return Durations.parseOr(
                "spec.shutdownGracePeriod", pool.getSpec().getShutdownGracePeriod(), Duration.ofSeconds(30));
    }

    private static Map<String, String> providerOptions(BackstageTopologySpec broker) {
        Map<String, String> options = new java.util.TreeMap<>(WorkerContainer.tlsOptions(
                WorkerContainer.tlsDir(PROVIDER_ROLE), broker.getTls(), broker.getProvider()));
        RabbitMqSettings rabbit = broker.getRabbitmq();
        if (broker.getProvider() == ProviderType.RABBITMQ) {
            options.putAll(RabbitMqSettings.providerOptions(rabbit)); // workers declare queues of the same type
        }
        if (broker.getProvider() == ProviderType.KAFKA) {
            // The topology owns its topics (partitions, replication): a worker that starts first must not create
            // one with its own defaults; it fails naming the topic until the topology has declared it.
            options.put(KAFKA_CREATE_TOPICS_OPTION, "false");
        }
        options.putAll(dev.backstage.operator.model.RedisTopologySettings.options(broker));
        options.putAll(
                KafkaTopologySettings.providerOptions(broker)); // workers create retry and dead-letter topics too
        return options.isEmpty() ? null : options;
    }

    /** The Kafka provider option that turns off topic creation (KafkaSettings.OPT_CREATE_TOPICS). */
    static final String KAFKA_CREATE_TOPICS_OPTION = "createTopics";

    /** The roles whose TLS files are mounted in {@link WorkerContainer#tlsDir}. */
    public static final String PROVIDER_ROLE = "provider";

    public static final String DELAYS_ROLE = "delays";
    public static final String DEDUPE_ROLE = "dedupe";

    private static RuntimeConfig.Connection capability(
            CapabilityBackend backend, String urlEnv, String role, BackstageTopologySpec broker) {
        if (backend == null) {
            return null;
        }
        String prefix = backend.getKeyPrefix() != null ? backend.getKeyPrefix() : broker.getKeyPrefix();
        Map<String, String> tls =
                WorkerContainer.tlsOptions(WorkerContainer.tlsDir(role), backend.getTls(), backend.getBackend());
        return new RuntimeConfig.Connection(
                backend.getBackend().wire(), urlEnv, null, prefix, null, tls.isEmpty() ? null : tls);
    }

    private static List<RuntimeConfig.TopicSubscription> topics(List<TopicSubscriptionSpec> topics) {
        if (topics == null || topics.isEmpty()) {
            return null;
        }
        return topics.stream()
                .map(t -> new RuntimeConfig.TopicSubscription(
                        t.getTopic(),
                        t.getGroup(),
                        t.getStart() == null ? null : t.getStart().wire()))
                .toList();
    }

    private static RuntimeConfig.BackoffSection backoff(RetryBackoffSpec backoff) {
        if (backoff == null) {
            return null;
        }
        return new RuntimeConfig.BackoffSection(
                backoff.getType() == null ? null : backoff.getType().wire(),
                millis("spec.retryBackoff.delay", backoff.getDelay()),
                millis("spec.retryBackoff.maxDelay", backoff.getMaxDelay()));
    }

    private static Long millis(String field, String value) {
        return value == null ? null : Durations.parse(field, value).toMillis();
    }
}
