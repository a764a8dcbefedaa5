package dev.backstage.runtime.kafka;

import dev.backstage.runtime.spi.BacklogProbe;
import dev.backstage.runtime.spi.BroadcastCapability;
import dev.backstage.runtime.spi.DeadLetterQueue;
import dev.backstage.runtime.spi.JobsCapability;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderHealth;
import dev.backstage.runtime.spi.TopicsCapability;
import dev.backstage.runtime.spi.TopologyDeclarer;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Kafka as a Backstage provider: jobs, topics and broadcast, plus the declarer, backlog probe and dead-letter tools
 * the operator and CLI use. It has no delays and no dedupe; a worker on Kafka must be given a delays
 * capability (e.g. Redis), since retries need one:
 *
 * <pre>{@code
 * Worker.builder()
 *     .provider(KafkaProvider.connect("kafka-0:9092,kafka-1:9092"))
 *     .delays(RedisDelays.connect("redis://redis:6379"))
 *     .build();
 * }</pre>
 *
 * <p>Clients are created on first use, so creating a provider does not touch the network.
 */
public final class KafkaProvider implements Provider {
    private final KafkaSettings settings;
    private final KafkaClients clients;
    private final KafkaJobs jobs;
    private final KafkaTopics topics;
    private final KafkaBroadcast broadcast;
    private final KafkaDeclarer declarer;
    private final KafkaBacklogProbe probe;
    private final KafkaDeadLetters deadLetters;

    private KafkaProvider(KafkaSettings settings) {
        this.settings = settings;
        this.clients = new KafkaClients(settings);
        this.jobs = new KafkaJobs(clients);
        this.topics = new KafkaTopics(clients);
        this.broadcast = new KafkaBroadcast(clients);
        this.declarer = new KafkaDeclarer(clients);
        this.probe = new KafkaBacklogProbe(clients);
        this.deadLetters = new KafkaDeadLetters(clients, jobs);
    }

    /** Development defaults (1 partition, replication factor 1) on {@code host:port[,host:port]}. */
    public static KafkaProvider connect(String bootstrapServers) {
        return connect(KafkaSettings.of(bootstrapServers));
    }

    public static KafkaProvider connect(KafkaSettings settings) {
        return new KafkaProvider(settings);
    }

    public KafkaSettings settings() {
        return settings;
    }

    @Override
    public String name() {
        return "kafka";
    }

    @Override
    public JobsCapability jobs() {
        return jobs;
    }

    @Override
    public Optional<TopicsCapability> topics() {
        return Optional.of(topics);
    }

    @Override
    public Optional<BroadcastCapability> broadcast() {
        return Optional.of(broadcast);
    }

    @Override
    public TopologyDeclarer declarer() {
        return declarer;
    }

    @Override
    public BacklogProbe backlogProbe() {
        return probe;
    }

    @Override
    public DeadLetterQueue deadLetters() {
        return deadLetters;
    }

    @Override
    public ProviderHealth health() {
        try {
            int nodes = clients.admin()
                    .describeCluster()
                    .nodes()
                    .get(2, TimeUnit.SECONDS)
                    .size();
            return nodes > 0 ? ProviderHealth.ok() : ProviderHealth.down("the cluster reports no brokers");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ProviderHealth.down("interrupted");
        } catch (Exception e) {
            String detail = KafkaBrokerException.describe(e);
            String reason = dev.backstage.runtime.spi.ConnectionFailure.label(e);
            return ProviderHealth.down(reason + "Kafka unreachable: " + detail.substring(reason.length()));
        }
    }

    @Override
    public void close() {
        clients.close();
    }
}
