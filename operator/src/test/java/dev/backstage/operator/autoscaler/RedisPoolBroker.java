package dev.backstage.operator.autoscaler;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.testing.BackstageFixtures;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.OutgoingJob;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import dev.backstage.runtime.spi.TopologyRequest;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lettuce.core.Consumer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.XReadArgs.StreamOffset;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.List;

/**
 * One test's broker side on the real local Redis: a unique key prefix, the topology's streams and group declared
 * through the Redis provider's own declarer, jobs enqueued through its jobs capability, and a bare consumer that
 * reads without acknowledging (jobs in flight) until the test acks. Removes its keys when closed.
 */
final class RedisPoolBroker implements AutoCloseable {
    static final String REDIS_URL = System.getenv().getOrDefault("BACKSTAGE_REDIS_URL", "redis://127.0.0.1:6379");
    static final String GROUP = "backstage-workers";

    final String prefix = UniqueNames.prefix("bsop");
    private final Provider provider =
            Providers.create(ProviderSettings.of("redis", REDIS_URL).withPrefix(prefix));
    private final RedisClient client = RedisClient.create(REDIS_URL);
    private final StatefulRedisConnection<String, String> connection = client.connect();
    private final List<StreamMessage<String, String>> held = new ArrayList<>();

    /** Declares {@code queues} (streams, group, dead-letter streams). */
    RedisPoolBroker declare(String... queues) {
        provider.declarer()
                .declare(new TopologyRequest(
                        List.of(queues).stream()
                                .map(TopologyRequest.QueueSpec::named)
                                .toList(),
                        List.of(),
                        true,
                        GROUP));
        return this;
    }

    /**
     * A Ready Redis topology on this prefix, its URL in a Secret; {@code url} lets a test put a proxy in between.
     */
    BackstageTopology createTopology(
            KubernetesClient k8s, String namespace, String name, String url, String... queues) {
        k8s.secrets()
                .inNamespace(namespace)
                .resource(new SecretBuilder()
                        .withNewMetadata()
                        .withName(name + "-redis")
                        .withNamespace(namespace)
                        .endMetadata()
                        .addToStringData("url", url)
                        .build())
                .create();
        BackstageTopology topology = BackstageFixtures.redisTopology(namespace, name, queues);
        topology.getSpec().setKeyPrefix(prefix);
        topology.getSpec().setConsumerGroup(GROUP);
        return BackstageFixtures.createReadyTopology(k8s, topology);
    }

    void enqueue(String queue, int count) {
        for (int i = 0; i < count; i++) {
            provider.jobs().publish(OutgoingJob.fresh(queue, "work", "{\"n\":" + i + "}", JobMeta.NONE));
        }
    }

    /** Reads up to {@code count} jobs as a worker would, without acknowledging them: they are now in flight. */
    int readWithoutAck(String queue, int count) {
        List<StreamMessage<String, String>> read = redis().xreadgroup(
                        Consumer.from(GROUP, "test-consumer"),
                        XReadArgs.Builder.count(count),
                        StreamOffset.lastConsumed(stream(queue)));
        held.addAll(read);
        return read.size();
    }

    /** Acknowledges {@code count} of the jobs read so far. */
    void ack(String queue, int count) {
        for (int i = 0; i < count; i++) {
            StreamMessage<String, String> message = held.remove(0);
            redis().xack(stream(queue), GROUP, message.getId());
        }
    }

    void deadLetter(String queue, int count) {
        for (int i = 0; i < count; i++) {
            redis().xadd(stream(queue) + ":dead-letter", "taskName", "work", "error", "boom");
        }
    }

    String stream(String queue) {
        return prefix + ":" + queue;
    }

    RedisCommands<String, String> redis() {
        return connection.sync();
    }

    @Override
    public void close() {
        provider.close();
        var scan = redis().scan(ScanArgs.Builder.matches(prefix + ":*").limit(1000));
        while (true) {
            if (!scan.getKeys().isEmpty()) {
                redis().del(scan.getKeys().toArray(String[]::new));
            }
            if (scan.isFinished()) {
                break;
            }
            scan = redis().scan(scan, ScanArgs.Builder.matches(prefix + ":*").limit(1000));
        }
        connection.close();
        client.shutdown();
    }
}
