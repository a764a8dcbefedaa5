package dev.backstage.operator.admission;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageTopologySpec;
import dev.backstage.operator.model.CapabilityBackend;
import dev.backstage.operator.model.DelayedExchangeMode;
import dev.backstage.operator.model.DeletionPolicy;
import dev.backstage.operator.model.KafkaTopologySettings;
import dev.backstage.operator.model.ProviderType;
import dev.backstage.operator.model.QueueSpec;
import dev.backstage.operator.model.RabbitMqQueueType;
import dev.backstage.operator.model.RabbitMqSettings;
import dev.backstage.operator.model.ScheduleSpec;
import dev.backstage.operator.model.SecretKeyReference;
import dev.backstage.operator.model.SuppliedCapabilities;
import dev.backstage.operator.model.TopicSpec;
import dev.backstage.operator.schedule.ScheduleSpecs;
import dev.backstage.runtime.spi.BrokerNames;
import dev.backstage.runtime.spi.schedule.InvalidScheduleException;
import io.javaoperatorsdk.webhook.admission.Operation;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Admission rules for BackstageTopology. Each denial names the field and what to set; the schema and CEL rules
 * check the simple cases too, so a cluster without the webhook still refuses most of them.
 *
 * <p>Kept as one class: it is the list of topology rules, each a few lines with its fix-it message over one spec, which
 * reads best as one list; the schedule checks reuse {@code ScheduleSpecs} and {@code spi.schedule}.
 */
public final class TopologyValidator implements AdmissionCheck<BackstageTopology> {
    @Override
    public Verdict check(BackstageTopology topology, BackstageTopology old, Operation operation, String namespace) {
        Verdict verdict = new Verdict();
        BackstageTopologySpec spec = topology.getSpec();
        if (spec == null) {
            return verdict.deny("spec is required: set spec.provider, spec.connection and spec.queues");
        }
        if (spec.getProvider() == null) {
            verdict.deny("spec.provider is required: set it to redis, rabbitmq or kafka");
        }
        connection(verdict, "spec.connection", spec.getConnection());
        if (spec.getKeyPrefix() != null) {
            String provider =
                    spec.getProvider() == null ? null : spec.getProvider().wire();
            BrokerNames.prefixProblem("spec.keyPrefix", spec.getKeyPrefix(), provider)
                    .ifPresent(verdict::deny);
        }
        if (spec.getConsumerGroup() != null) {
            BrokerNames.groupProblem("spec.consumerGroup", spec.getConsumerGroup())
                    .ifPresent(verdict::deny);
        }
        queues(verdict, spec);
        topics(verdict, spec);
        schedules(verdict, spec);
        if (spec.getProvider() != null) {
            capabilities(verdict, spec);
            rabbitMq(verdict, spec);
            redis(verdict, spec);
            kafka(verdict, spec);
        }
        if (operation == Operation.UPDATE && old != null && old.getSpec() != null) {
            changes(verdict, old.getSpec(), spec);
        }
        if (spec.getDeletionPolicy() == DeletionPolicy.DELETE
                && (old == null
                        || old.getSpec() == null
                        || old.getSpec().getDeletionPolicy() != DeletionPolicy.DELETE)) {
            verdict.warn(
                    "spec.deletionPolicy is delete: deleting this BackstageTopology deletes its queues, dead-letter"
                            + " queues and topics on the broker, with every job in them");
        }
        return verdict;
    }

    static void connection(Verdict verdict, String field, SecretKeyReference reference) {
        if (reference == null
                || reference.getSecretName() == null
                || reference.getSecretName().isBlank()) {
            verdict.deny(field + ".secretName is required: name a Secret in this namespace whose key " + "(" + field
                    + ".key, default 'url') holds the connection URL");
            return;
        }
        ReferenceNames.objectName(
                        field + ".secretName", reference.getSecretName(), "a Secret in this namespace", "orders-redis")
                .ifPresent(verdict::deny);
        if (reference.getKey() != null) {
            ReferenceNames.dataKey(field + ".key", reference.getKey()).ifPresent(verdict::deny);
        }
    }

    private static void queues(Verdict verdict, BackstageTopologySpec spec) {
        List<QueueSpec> queues = spec.getQueues();
        if (queues == null || queues.isEmpty()) {
            verdict.deny("spec.queues is empty: declare at least one queue, e.g. queues: [{name: default}]");
            return;
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < queues.size(); i++) {
            QueueSpec queue = queues.get(i);
            String field = "spec.queues[" + i + "]";
            if (queue.getName() == null || queue.getName().isBlank()) {
                verdict.deny(field + ".name is required");
                continue;
            }
            BrokerNames.queueProblem(field + ".name", queue.getName()).ifPresent(verdict::deny);
            if (!seen.add(queue.getName())) {
                verdict.deny(field + ": queue '" + queue.getName() + "' is declared twice; queue names must be unique");
            }
            sizing(
                    verdict,
                    spec.getProvider(),
                    spec.getKafka(),
                    field,
                    queue.getPartitions(),
                    queue.getReplicationFactor());
        }
    }

    private static void topics(Verdict verdict, BackstageTopologySpec spec) {
        List<TopicSpec> topics = spec.getTopics();
        if (topics == null || topics.isEmpty()) {
            return;
        }
        if (spec.getProvider() != null && !ProviderCapabilities.topics(spec.getProvider())) {
            verdict.deny("spec.topics: the " + spec.getProvider().wire() + " provider has no topics; remove spec.topics"
                    + " or use a provider with topics (redis, rabbitmq, kafka)");
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < topics.size(); i++) {
            TopicSpec topic = topics.get(i);
            String field = "spec.topics[" + i + "]";
            if (topic.getName() == null || topic.getName().isBlank()) {
                verdict.deny(field + ".name is required");
                continue;
            }
            BrokerNames.queueProblem(field + ".name", topic.getName()).ifPresent(verdict::deny);
            if (!seen.add(topic.getName())) {
                verdict.deny(field + ": topic '" + topic.getName() + "' is declared twice; topic names must be unique");
            }
            sizing(
                    verdict,
                    spec.getProvider(),
                    spec.getKafka(),
                    field,
                    topic.getPartitions(),
                    topic.getReplicationFactor());
        }
    }

    private static void schedules(Verdict verdict, BackstageTopologySpec spec) {
        List<ScheduleSpec> schedules = spec.getSchedules();
        if (schedules == null || schedules.isEmpty()) {
            return;
        }
        Set<String> queues = new HashSet<>();
        if (spec.getQueues() != null) {
            spec.getQueues().forEach(q -> queues.add(q.getName()));
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < schedules.size(); i++) {
            ScheduleSpec schedule = schedules.get(i);
            String field = "spec.schedules[" + i + "]";
            if (schedule.getName() != null && !seen.add(schedule.getName())) {
                verdict.deny(field + ": schedule '" + schedule.getName() + "' is declared twice; schedule names must"
                        + " be unique");
            }
            try {
                ScheduleSpecs.toSchedule(schedule);
            } catch (InvalidScheduleException e) {
                verdict.deny(field + ": " + e.getMessage());
            }
            String queue = schedule.getQueue() == null ? "default" : schedule.getQueue();
            if (!queues.contains(queue)) {
                verdict.deny(field + ": queue '" + queue + "' is not declared by this topology: add it to spec.queues"
                        + " or set spec.schedules[" + i + "].queue to one of "
                        + queues.stream().sorted().toList());
            }
        }
        boolean suppliedDedupe =
                spec.getCapabilities() != null && spec.getCapabilities().getDedupe() != null;
        if (spec.getProvider() != null && !ProviderCapabilities.dedupe(spec.getProvider()) && !suppliedDedupe) {
            verdict.deny("spec.schedules: each tick is claimed with a dedupe key so that it is enqueued once across"
                    + " operators, and the " + spec.getProvider().wire() + " provider has no dedupe: set"
                    + " spec.capabilities.dedupe (backend: redis, connection.secretName: a Secret with the Redis URL)");
        }
    }

    private static void sizing(
            Verdict verdict,
            ProviderType provider,
            KafkaTopologySettings kafka,
            String field,
            Integer partitions,
            Integer replicationFactor) {
        if (partitions != null && partitions < 1) {
            verdict.deny(field + ".partitions must be at least 1 (got " + partitions + ")");
        }
        if (replicationFactor != null && replicationFactor < 1) {
            verdict.deny(field + ".replicationFactor must be at least 1 (got " + replicationFactor + ")");
        }
        if (provider == ProviderType.KAFKA
                && replicationFactor != null
                && replicationFactor >= 1
                && replicationFactor < KafkaTopologySettings.minInsyncReplicasOf(kafka)) {
            verdict.deny(
                    field + ".replicationFactor " + replicationFactor + " is below the topology's min.insync.replicas "
                            + KafkaTopologySettings.minInsyncReplicasOf(kafka)
                            + ", so no produce could succeed: raise it or set"
                            + " spec.kafka.minInsyncReplicas to at most " + replicationFactor);
        }
        if (provider != null && provider != ProviderType.KAFKA && (partitions != null || replicationFactor != null)) {
            verdict.warn(field + ": partitions and replicationFactor apply to Kafka only; the " + provider.wire()
                    + " provider ignores them");
        }
    }

    private static void kafka(Verdict verdict, BackstageTopologySpec spec) {
        KafkaTopologySettings kafka = spec.getKafka();
        if (kafka == null) {
            return;
        }
        if (spec.getProvider() != ProviderType.KAFKA) {
            verdict.deny("spec.kafka applies only to provider kafka; remove it for provider "
                    + spec.getProvider().wire());
            return;
        }
        int rf = KafkaTopologySettings.replicationFactorOf(kafka);
        int minIsr = KafkaTopologySettings.minInsyncReplicasOf(kafka);
        if (minIsr > rf) {
            verdict.deny("spec.kafka.minInsyncReplicas " + minIsr + " exceeds the replication factor " + rf
                    + ", so no produce could succeed: set it to at most " + rf + " (1 on a single-broker cluster)");
        }
    }

    private static void capabilities(Verdict verdict, BackstageTopologySpec spec) {
        SuppliedCapabilities supplied = spec.getCapabilities();
        if (supplied != null) {
            backend(verdict, "delays", supplied.getDelays());
            backend(verdict, "dedupe", supplied.getDedupe());
        }
        if (spec.getProvider() == ProviderType.KAFKA && (supplied == null || supplied.getDelays() == null)) {
            verdict.deny("Kafka has no delays of its own, and every retry and scheduled job waits in one: set"
                    + " spec.capabilities.delays (backend: redis, connection.secretName: a Secret with the Redis URL)");
        }
    }

    private static void backend(Verdict verdict, String capability, CapabilityBackend backend) {
        if (backend == null) {
            return;
        }
        String field = "spec.capabilities." + capability;
        if (backend.getBackend() == null) {
            verdict.deny(field + ".backend is required: set it to redis");
        } else if (!ProviderCapabilities.SEPARATE_SUPPLIERS.contains(backend.getBackend())) {
            verdict.deny(field + ".backend: " + backend.getBackend().wire() + " cannot supply " + capability
                    + " to another provider's jobs; set it to redis");
        }
        connection(verdict, field + ".connection", backend.getConnection());
        if (backend.getKeyPrefix() != null) {
            String provider =
                    backend.getBackend() == null ? null : backend.getBackend().wire();
            BrokerNames.prefixProblem(field + ".keyPrefix", backend.getKeyPrefix(), provider)
                    .ifPresent(verdict::deny);
        }
    }

    private static void redis(Verdict verdict, BackstageTopologySpec spec) {
        var redis = spec.getRedis();
        if (redis == null) {
            return;
        }
        if (spec.getProvider() != ProviderType.REDIS) {
            verdict.deny("spec.redis applies only to provider redis; remove it for provider "
                    + spec.getProvider().wire());
            return;
        }
        if (redis.getWaitTimeoutMs() != null && (redis.getWaitReplicas() == null || redis.getWaitReplicas() == 0)) {
            verdict.deny("spec.redis." + dev.backstage.operator.model.RedisTopologySettings.NOTHING_WAITS);
        }
    }

    private static void rabbitMq(Verdict verdict, BackstageTopologySpec spec) {
        RabbitMqSettings rabbit = spec.getRabbitmq();
        if (rabbit == null) {
            return;
        }
        if (spec.getProvider() != ProviderType.RABBITMQ) {
            verdict.deny("spec.rabbitmq applies only to provider rabbitmq; remove it for provider "
                    + spec.getProvider().wire());
            return;
        }
        DelayedExchangeMode mode = ProviderCapabilities.delayedExchange(spec);
        boolean suppliedDelays =
                spec.getCapabilities() != null && spec.getCapabilities().getDelays() != null;
        if (mode == DelayedExchangeMode.SUPPLIED && !suppliedDelays) {
            verdict.deny("spec.rabbitmq.delayedExchange is supplied but nothing supplies delays: set"
                    + " spec.capabilities.delays (backend: redis), or use delayedExchange auto or fallback");
        }
        if (mode == DelayedExchangeMode.PLUGIN && !Boolean.TRUE.equals(rabbit.getPluginInstalled())) {
            verdict.deny("spec.rabbitmq.delayedExchange is plugin, which needs the rabbitmq_delayed_message_exchange"
                    + " plugin on the broker; admission cannot see the broker, so confirm it with"
                    + " spec.rabbitmq.pluginInstalled: true, or use auto (plugin when present, else the built-in"
                    + " fallback) or fallback");
        }
        if (mode != DelayedExchangeMode.SUPPLIED && suppliedDelays) {
            verdict.warn("spec.capabilities.delays is set but spec.rabbitmq.delayedExchange is " + mode.wire()
                    + ": the supplied delays are used (set delayedExchange: supplied to say so)");
        }
    }

    /*
     * A queue's type is fixed when the broker creates it, so a changed type would leave the existing queues as they are
     * and make new ones of the other type. Unset to classic is the one change let through: a topology written before
     * queue types existed has classic queues, and saying so changes nothing on the broker.
     */
    private static void queueTypeChange(Verdict verdict, RabbitMqSettings old, RabbitMqSettings spec) {
        RabbitMqQueueType before = RabbitMqSettings.effectiveQueueType(old);
        RabbitMqQueueType after = RabbitMqSettings.effectiveQueueType(spec);
        boolean wasUnset = old == null || old.getQueueType() == null;
        if (before == after || (wasUnset && after == RabbitMqQueueType.CLASSIC)) {
            return;
        }
        verdict.deny("spec.rabbitmq.queueType cannot change in place (it is " + before.wire() + "): RabbitMQ fixes a"
                + " queue's type when it creates it. To migrate, create a new BackstageTopology with another keyPrefix"
                + " and queueType " + after.wire() + ", point producers at it, let the workers drain the old queues,"
                + " then delete the old topology");
    }

    private static void changes(Verdict verdict, BackstageTopologySpec old, BackstageTopologySpec spec) {
        if (old.getProvider() != null && spec.getProvider() != null && old.getProvider() != spec.getProvider()) {
            verdict.deny("spec.provider is immutable (it was "
                    + old.getProvider().wire() + "): create a new" + " BackstageTopology to move to "
                    + spec.getProvider().wire());
        }
        if (spec.getProvider() == ProviderType.RABBITMQ && old.getProvider() == ProviderType.RABBITMQ) {
            queueTypeChange(verdict, old.getRabbitmq(), spec.getRabbitmq());
        }
        if (!Objects.equals(old.getKeyPrefix(), spec.getKeyPrefix())) {
            verdict.warn("spec.keyPrefix changed from '" + old.getKeyPrefix() + "' to '" + spec.getKeyPrefix()
                    + "': new, empty broker objects are declared; jobs under the old prefix stay where they are");
        }
        if (!Objects.equals(old.getConsumerGroup(), spec.getConsumerGroup())) {
            verdict.warn("spec.consumerGroup changed from '" + old.getConsumerGroup() + "' to '"
                    + spec.getConsumerGroup() + "': workers join a new group, which starts from the queue's start");
        }
        if (old.getQueues() != null && spec.getQueues() != null) {
            Set<String> now = new HashSet<>();
            spec.getQueues().forEach(q -> now.add(q.getName()));
            for (QueueSpec queue : old.getQueues()) {
                if (!now.contains(queue.getName())) {
                    verdict.warn("queue '" + queue.getName() + "' was removed from spec.queues; its broker objects and"
                            + " jobs are left in place");
                }
                spec.getQueues().stream()
                        .filter(q -> q.getName().equals(queue.getName()))
                        .findFirst()
                        .filter(q -> spec.getProvider() == ProviderType.KAFKA
                                && q.getPartitions() != null
                                && queue.getPartitions() != null
                                && q.getPartitions() < queue.getPartitions())
                        .ifPresent(q -> verdict.warn("queue '" + q.getName() + "': Kafka cannot reduce partitions ("
                                + queue.getPartitions() + " → " + q.getPartitions() + "); the topic keeps "
                                + queue.getPartitions()));
            }
        }
    }
}
