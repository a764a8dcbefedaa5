package dev.backstage.operator.admission;

import dev.backstage.operator.model.AutoscalingSpec;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageTopologySpec;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolSpec;
import dev.backstage.operator.model.ProviderType;
import dev.backstage.operator.model.QueueSpec;
import dev.backstage.operator.model.RetryBackoffSpec;
import dev.backstage.operator.model.TopicSpec;
import dev.backstage.operator.model.TopicSubscriptionSpec;
import dev.backstage.runtime.config.Durations;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.webhook.admission.Operation;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Admission rules for BackstageWorkerPool: its topology must exist and declare what the pool consumes and needs;
 * counts and durations must be positive; autoscaling bounds must be ordered. Warns about legal settings that waste
 * resources (replicas beyond Kafka partitions, prefetch below concurrency).
 *
 * <p>The topology comes from the operator's informer cache ({@link TopologyLookup}) when the cached copy lets the pool
 * through, so the common admission call makes no API request and never waits on the API server it serves. A pool the
 * cached copy would deny, or whose topology the cache does not hold, is judged on a fresh read instead: a topology
 * created or changed a moment before its pool (one {@code kubectl apply -f} of both) may not have reached the cache.
 *
 * <p>Kept as one class: each rule is a few lines with its fix-it message, and the rules share the pool's topology
 * (cached or read fresh), which decides which of them apply.
 */
public final class WorkerPoolValidator implements AdmissionCheck<BackstageWorkerPool> {
    private final KubernetesClient client;
    private final TopologyLookup cache;

    /** Reads every pool's topology from the API server. */
    public WorkerPoolValidator(KubernetesClient client) {
        this(client, TopologyLookup.NONE);
    }

    /** @param cache the operator's cached topologies, tried before the API server */
    public WorkerPoolValidator(KubernetesClient client, TopologyLookup cache) {
        this.client = Objects.requireNonNull(client, "client");
        this.cache = Objects.requireNonNull(cache, "cache");
    }

    @Override
    public Verdict check(BackstageWorkerPool pool, BackstageWorkerPool old, Operation operation, String namespace) {
        Verdict verdict = new Verdict();
        BackstageWorkerPoolSpec spec = pool.getSpec();
        if (spec == null) {
            return verdict.deny(
                    "spec is required: set spec.image, spec.topologyRef.name and spec.queues or spec.topics");
        }
        if (spec.getImage() == null || spec.getImage().isBlank()) {
            verdict.deny("spec.image is required: the Backstage runtime image with your task modules");
        }
        boolean consumesQueues = spec.getQueues() != null && !spec.getQueues().isEmpty();
        boolean consumesTopics = spec.getTopics() != null && !spec.getTopics().isEmpty();
        if (!consumesQueues && !consumesTopics) {
            verdict.deny("the pool consumes nothing: set spec.queues (queues of its topology) or spec.topics");
        }
        counts(verdict, spec);
        durations(verdict, spec);
        autoscaling(verdict, spec.getAutoscaling());
        topology(verdict, spec, namespace);
        return verdict;
    }

    private static void counts(Verdict verdict, BackstageWorkerPoolSpec spec) {
        atLeast(verdict, "spec.concurrency", spec.getConcurrency(), 1);
        atLeast(verdict, "spec.prefetch", spec.getPrefetch(), 1);
        atLeast(verdict, "spec.maxRetries", spec.getMaxRetries(), 1);
        atLeast(verdict, "spec.maxDeliveries", spec.getMaxDeliveries(), 1);
        if (spec.getMaxDeliveries() != null) {
            if (spec.getMaxRetries() != null) {
                verdict.deny("spec.maxDeliveries is the old name of spec.maxRetries: set only spec.maxRetries");
            } else {
                verdict.warn("spec.maxDeliveries is deprecated: it counts retries (a failing job runs "
                        + (spec.getMaxDeliveries() + 1) + " times); rename it to spec.maxRetries");
            }
        }
        atLeast(verdict, "spec.replicas", spec.getReplicas(), 0);
        if (spec.getPrefetch() != null
                && spec.getConcurrency() != null
                && spec.getPrefetch() >= 1
                && spec.getPrefetch() < spec.getConcurrency()) {
            verdict.warn("spec.prefetch (" + spec.getPrefetch() + ") is below spec.concurrency ("
                    + spec.getConcurrency() + "): at most " + spec.getPrefetch()
                    + " handlers run at once; set prefetch >= concurrency");
        }
    }

    private static void durations(Verdict verdict, BackstageWorkerPoolSpec spec) {
        positive(verdict, "spec.shutdownGracePeriod", spec.getShutdownGracePeriod());
        positive(verdict, "spec.hardTimeout", spec.getHardTimeout());
        RetryBackoffSpec backoff = spec.getRetryBackoff();
        if (backoff != null) {
            if (backoff.getDelay() == null) {
                verdict.deny("spec.retryBackoff.delay is required, e.g. 1s");
            }
            Optional<Duration> delay = positive(verdict, "spec.retryBackoff.delay", backoff.getDelay());
            Optional<Duration> max = positive(verdict, "spec.retryBackoff.maxDelay", backoff.getMaxDelay());
            if (delay.isPresent() && max.isPresent() && max.get().compareTo(delay.get()) < 0) {
                verdict.deny("spec.retryBackoff.maxDelay (" + backoff.getMaxDelay()
                        + ") is below spec.retryBackoff.delay (" + backoff.getDelay() + "): set maxDelay >= delay");
            }
        }
    }

    private static void autoscaling(Verdict verdict, AutoscalingSpec autoscaling) {
        if (autoscaling == null) {
            return;
        }
        atLeast(verdict, "spec.autoscaling.minReplicas", autoscaling.getMinReplicas(), 0);
        atLeast(verdict, "spec.autoscaling.maxReplicas", autoscaling.getMaxReplicas(), 1);
        atLeast(verdict, "spec.autoscaling.targetBacklogPerReplica", autoscaling.getTargetBacklogPerReplica(), 1);
        if (autoscaling.getMinReplicas() != null
                && autoscaling.getMaxReplicas() != null
                && autoscaling.getMinReplicas() > autoscaling.getMaxReplicas()) {
            verdict.deny("spec.autoscaling.minReplicas (" + autoscaling.getMinReplicas() + ") is above maxReplicas ("
                    + autoscaling.getMaxReplicas() + "): set minReplicas <= maxReplicas");
        }
        positive(verdict, "spec.autoscaling.pollInterval", autoscaling.getPollInterval());
        positive(verdict, "spec.autoscaling.zeroPollInterval", autoscaling.getZeroPollInterval());
        positive(verdict, "spec.autoscaling.targetDrainTime", autoscaling.getTargetDrainTime());
        parse(verdict, "spec.autoscaling.scaleDownWindow", autoscaling.getScaleDownWindow());
        parse(verdict, "spec.autoscaling.podStartupTime", autoscaling.getPodStartupTime());
        atMostOneHour(verdict, "spec.autoscaling.scaleUpLookahead", autoscaling.getScaleUpLookahead(), "120s");
        atMostOneHour(verdict, "spec.autoscaling.scaleDownInterval", autoscaling.getScaleDownInterval(), "60s");
    }

    private static void atMostOneHour(Verdict verdict, String field, String value, String example) {
        Optional<Duration> parsed = parse(verdict, field, value);
        if (parsed.isPresent() && parsed.get().compareTo(Durations.ONE_HOUR) > 0) {
            verdict.deny(field + " must be at most 1h (got " + value + "), e.g. " + example);
        }
    }

    private void topology(Verdict verdict, BackstageWorkerPoolSpec spec, String namespace) {
        if (spec.getTopologyRef() == null
                || spec.getTopologyRef().getName() == null
                || spec.getTopologyRef().getName().isBlank()) {
            verdict.deny("spec.topologyRef.name is required: name a BackstageTopology in this namespace");
            return;
        }
        String name = spec.getTopologyRef().getName();
        Optional<String> invalid = ReferenceNames.objectName(
                "spec.topologyRef.name", name, "a BackstageTopology in this namespace", "orders");
        if (invalid.isPresent()) {
            verdict.deny(invalid.get());
            return;
        }
        Optional<BackstageTopology> cached = cache.cached(namespace, name);
        if (cached.isPresent() && cached.get().getSpec() != null) {
            Verdict fromCache = new Verdict();
            fits(fromCache, spec, name, cached.get().getSpec());
            if (fromCache.allowed()) {
                verdict.include(fromCache);
                return;
            }
        }
        BackstageTopology topology;
        try {
            topology = client.resources(BackstageTopology.class)
                    .inNamespace(namespace)
                    .withName(name)
                    .get();
        } catch (KubernetesClientException e) {
            verdict.deny("could not look up BackstageTopology '" + name + "' in namespace '" + namespace + "' ("
                    + e.getCode() + " " + e.getMessage() + "); retry");
            return;
        }
        if (topology == null || topology.getSpec() == null) {
            verdict.deny("spec.topologyRef.name: BackstageTopology '" + name + "' not found in namespace '" + namespace
                    + "'; create it first, or fix spec.topologyRef.name");
            return;
        }
        fits(verdict, spec, name, topology.getSpec());
    }

    /** Whether the topology {@code name} declares what the pool consumes and supplies what it needs. */
    private static void fits(Verdict verdict, BackstageWorkerPoolSpec spec, String name, BackstageTopologySpec broker) {
        queues(verdict, spec, name, broker);
        topics(verdict, spec, name, broker);
        if (broker.getProvider() != null && !ProviderCapabilities.hasDelays(broker)) {
            verdict.deny("BackstageTopology '" + name + "' supplies no delays, which every retry needs (provider "
                    + broker.getProvider().wire() + "): set spec.capabilities.delays on the topology (backend: redis)");
        }
        if (broker.getProvider() == ProviderType.KAFKA) {
            kafkaReplicas(verdict, spec, broker);
        }
    }

    private static void queues(
            Verdict verdict, BackstageWorkerPoolSpec spec, String topologyName, BackstageTopologySpec broker) {
        if (spec.getQueues() == null) {
            return;
        }
        List<String> declared = broker.getQueues() == null
                ? List.of()
                : broker.getQueues().stream().map(QueueSpec::getName).toList();
        Set<String> seen = new HashSet<>();
        for (String queue : spec.getQueues()) {
            if (!seen.add(queue)) {
                verdict.deny("spec.queues: queue '" + queue + "' is listed twice");
            } else if (!declared.contains(queue)) {
                verdict.deny("spec.queues: queue '" + queue + "' is not declared by BackstageTopology '" + topologyName
                        + "' (it declares " + declared + "); add it to the topology's spec.queues or fix the pool's");
            }
        }
    }

    private static void topics(
            Verdict verdict, BackstageWorkerPoolSpec spec, String topologyName, BackstageTopologySpec broker) {
        if (spec.getTopics() == null || spec.getTopics().isEmpty()) {
            return;
        }
        if (broker.getProvider() != null && !ProviderCapabilities.topics(broker.getProvider())) {
            verdict.deny("spec.topics: BackstageTopology '" + topologyName + "' uses provider "
                    + broker.getProvider().wire()
                    + ", which has no topics and nothing supplies them; remove spec.topics");
            return;
        }
        List<String> declared = broker.getTopics() == null
                ? List.of()
                : broker.getTopics().stream().map(TopicSpec::getName).toList();
        for (int i = 0; i < spec.getTopics().size(); i++) {
            TopicSubscriptionSpec subscription = spec.getTopics().get(i);
            String field = "spec.topics[" + i + "]";
            if (subscription.getTopic() == null || subscription.getTopic().isBlank()) {
                verdict.deny(field + ".topic is required");
            } else if (!declared.contains(subscription.getTopic())) {
                verdict.deny(field + ": topic '" + subscription.getTopic() + "' is not declared by BackstageTopology '"
                        + topologyName + "' (it declares " + declared + "); add it to the topology's spec.topics");
            }
            if (subscription.getGroup() == null || subscription.getGroup().isBlank()) {
                verdict.deny(field + ".group is required: the subscription group the pool's replicas share");
            }
        }
    }

    /** A Kafka partition goes to one consumer of a group: replicas beyond the partition count sit idle. */
    private static void kafkaReplicas(Verdict verdict, BackstageWorkerPoolSpec spec, BackstageTopologySpec broker) {
        if (spec.getQueues() == null || spec.getQueues().isEmpty() || broker.getQueues() == null) {
            return;
        }
        Map<String, Integer> partitions = broker.getQueues().stream()
                .collect(Collectors.toMap(
                        QueueSpec::getName, q -> q.getPartitions() == null ? 1 : q.getPartitions(), (a, b) -> a));
        int most = spec.getQueues().stream()
                .map(partitions::get)
                .filter(Objects::nonNull)
                .mapToInt(Integer::intValue)
                .max()
                .orElse(0);
        if (most == 0) {
            return;
        }
        AutoscalingSpec autoscaling = spec.getAutoscaling();
        if (autoscaling != null && autoscaling.isOn()) {
            if (autoscaling.getMaxReplicas() != null && autoscaling.getMaxReplicas() > most) {
                verdict.warn("spec.autoscaling.maxReplicas (" + autoscaling.getMaxReplicas()
                        + ") is above the partition"
                        + " count of the pool's Kafka queues (at most " + most + "): the autoscaler stops at " + most
                        + "; raise the queues' partitions to scale further");
            }
        } else if (spec.getReplicas() != null && spec.getReplicas() > most) {
            verdict.warn("spec.replicas (" + spec.getReplicas() + ") is above the partition count of the pool's Kafka"
                    + " queues (at most " + most + "): " + (spec.getReplicas() - most) + " replicas would sit idle");
        }
    }

    private static void atLeast(Verdict verdict, String field, Integer value, int minimum) {
        if (value != null && value < minimum) {
            verdict.deny(field + " must be at least " + minimum + " (got " + value + ")");
        }
    }

    /** A duration that, when set, must parse and be greater than zero. */
    private static Optional<Duration> positive(Verdict verdict, String field, String value) {
        Optional<Duration> parsed = parse(verdict, field, value);
        if (parsed.isPresent() && (parsed.get().isZero() || parsed.get().isNegative())) {
            verdict.deny(field + " must be greater than zero (got " + value + ")");
            return Optional.empty();
        }
        return parsed;
    }

    private static Optional<Duration> parse(Verdict verdict, String field, String value) {
        if (value == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(Durations.parse(field, value));
        } catch (IllegalArgumentException e) {
            verdict.deny(e.getMessage());
            return Optional.empty();
        }
    }
}
