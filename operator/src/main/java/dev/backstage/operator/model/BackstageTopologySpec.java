package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.backstage.runtime.spi.BrokerNames;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.ArrayList;
import java.util.List;

/** The broker side: which provider, how to reach it, and the objects to declare on it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "!has(self.rabbitmq) || self.provider == 'rabbitmq'",
        message = "spec.rabbitmq applies only to provider rabbitmq")
@ValidationRule(
        value = "!has(self.redis) || self.provider == 'redis'",
        message = "spec.redis applies only to provider redis")
@ValidationRule(value = BrokerNameRules.BRACED_PREFIX, message = BrokerNameRules.BRACED_PREFIX_MESSAGE)
@ValidationRule(
        value = "!has(self.kafka) || self.provider == 'kafka'",
        message = "spec.kafka applies only to provider kafka")
@ValidationRule(
        value = "!has(self.rabbitmq) || self.rabbitmq.delayedExchange != 'supplied'"
                + " || (has(self.capabilities) && has(self.capabilities.delays))",
        message = "rabbitmq.delayedExchange 'supplied' needs spec.capabilities.delays")
@ValidationRule(
        value = "self.provider != 'kafka' || (has(self.capabilities) && has(self.capabilities.delays))",
        message =
                "Kafka has no delays of its own and retries wait in them: set spec.capabilities.delays (backend redis)")
@ValidationRule(
        value = "!has(self.schedules) || self.schedules.all(s, self.queues.exists(q, q.name == s.queue))",
        message =
                "a schedule's queue must be declared in spec.queues: add it there or set the schedule's queue to one of them")
@ValidationRule(
        value = "!has(self.schedules) || size(self.schedules) == 0 || self.provider == 'redis'"
                + " || (has(self.capabilities) && has(self.capabilities.dedupe))",
        message = "schedules claim each tick with a dedupe key and this provider has no dedupe: set"
                + " spec.capabilities.dedupe (backend redis)")
public class BackstageTopologySpec {
    @Required
    @ValidationRule(
            value = "self == oldSelf",
            message = "provider is immutable; create a new BackstageTopology to move to another broker")
    @JsonPropertyDescription("The jobs provider: redis | rabbitmq | kafka. Immutable.")
    private ProviderType provider;

    @Required
    @JsonPropertyDescription("Secret key holding the provider's connection URL. Credentials are never written inline.")
    private SecretKeyReference connection;

    @JsonPropertyDescription("TLS for the provider's connection: CA bundle and client certificate Secrets.")
    private TlsSpec tls;

    @Default("backstage")
    @Size(min = 1, max = BrokerNames.PREFIX_MAX_LENGTH)
    @ValidationRule(value = BrokerNameRules.PREFIX, message = BrokerNameRules.PREFIX_MESSAGE)
    @JsonPropertyDescription("Prefix of every broker object name (streams, queues, topics, keys). For provider redis it"
            + " may be a hash tag in braces ({backstage}): on a Redis Cluster all keys then share one slot, the layout"
            + " the seed SDKs need to share the cluster.")
    private String keyPrefix = "backstage";

    @Default("backstage-workers")
    @Size(min = 1, max = BrokerNames.GROUP_MAX_LENGTH)
    @ValidationRule(value = BrokerNameRules.GROUP, message = BrokerNameRules.GROUP_MESSAGE)
    @JsonPropertyDescription("Consumer group the workers join (Redis stream group, Kafka group; RabbitMQ ignores it).")
    private String consumerGroup = "backstage-workers";

    @Required
    @Size(min = 1, max = 64)
    @ValidationRule(value = "self.all(q, self.exists_one(p, p.name == q.name))", message = "queue names must be unique")
    @JsonPropertyDescription("The jobs queues to declare.")
    private List<QueueSpec> queues = new ArrayList<>();

    @Size(max = 64)
    @ValidationRule(value = "self.all(t, self.exists_one(u, u.name == t.name))", message = "topic names must be unique")
    @JsonPropertyDescription("Pub/sub topics to declare (needs a provider that supplies topics).")
    private List<TopicSpec> topics;

    @Default("true")
    @JsonPropertyDescription("Declare a dead-letter destination per queue (<queue>:dead-letter / <queue>.dead-letter).")
    private Boolean deadLetter = Boolean.TRUE;

    @Size(max = 64)
    @ValidationRule(
            value = "self.all(s, self.exists_one(t, t.name == s.name))",
            message = "schedule names must be unique")
    @JsonPropertyDescription("Cron schedules the leader operator fires on this broker: one job per tick, once across"
            + " operator failovers. Needs dedupe (provider redis, or spec.capabilities.dedupe).")
    private List<ScheduleSpec> schedules;

    @JsonPropertyDescription("Capabilities supplied by a backend other than the provider.")
    private SuppliedCapabilities capabilities;

    @JsonPropertyDescription("RabbitMQ-only settings.")
    private RabbitMqSettings rabbitmq;

    @JsonPropertyDescription("Redis-only settings: connection mode (standalone | cluster | sentinel) and replica wait.")
    private RedisTopologySettings redis;

    @JsonPropertyDescription("Kafka-only settings: replication of the topics (default replication factor 3,"
            + " min.insync.replicas 2; replicationFactor: 1 for a single-broker development cluster).")
    private KafkaTopologySettings kafka;

    @Default("retain")
    @JsonPropertyDescription("retain (default): broker objects outlive the topology; delete: remove them on deletion.")
    private DeletionPolicy deletionPolicy = DeletionPolicy.RETAIN;

    public ProviderType getProvider() {
        return provider;
    }

    public void setProvider(ProviderType provider) {
        this.provider = provider;
    }

    public SecretKeyReference getConnection() {
        return connection;
    }

    public void setConnection(SecretKeyReference connection) {
        this.connection = connection;
    }

    public TlsSpec getTls() {
        return tls;
    }

    public void setTls(TlsSpec tls) {
        this.tls = tls;
    }

    public String getKeyPrefix() {
        return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    public String getConsumerGroup() {
        return consumerGroup;
    }

    public void setConsumerGroup(String consumerGroup) {
        this.consumerGroup = consumerGroup;
    }

    public List<QueueSpec> getQueues() {
        return queues;
    }

    public void setQueues(List<QueueSpec> queues) {
        this.queues = queues;
    }

    public List<TopicSpec> getTopics() {
        return topics;
    }

    public void setTopics(List<TopicSpec> topics) {
        this.topics = topics;
    }

    public List<ScheduleSpec> getSchedules() {
        return schedules;
    }

    public void setSchedules(List<ScheduleSpec> schedules) {
        this.schedules = schedules;
    }

    public Boolean getDeadLetter() {
        return deadLetter;
    }

    public void setDeadLetter(Boolean deadLetter) {
        this.deadLetter = deadLetter;
    }

    public SuppliedCapabilities getCapabilities() {
        return capabilities;
    }

    public void setCapabilities(SuppliedCapabilities capabilities) {
        this.capabilities = capabilities;
    }

    public KafkaTopologySettings getKafka() {
        return kafka;
    }

    public void setKafka(KafkaTopologySettings kafka) {
        this.kafka = kafka;
    }

    public RabbitMqSettings getRabbitmq() {
        return rabbitmq;
    }

    public void setRabbitmq(RabbitMqSettings rabbitmq) {
        this.rabbitmq = rabbitmq;
    }

    public RedisTopologySettings getRedis() {
        return redis;
    }

    public void setRedis(RedisTopologySettings redis) {
        this.redis = redis;
    }

    public DeletionPolicy getDeletionPolicy() {
        return deletionPolicy;
    }

    public void setDeletionPolicy(DeletionPolicy deletionPolicy) {
        this.deletionPolicy = deletionPolicy;
    }
}
