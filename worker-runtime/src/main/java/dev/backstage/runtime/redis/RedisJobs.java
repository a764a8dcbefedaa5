package dev.backstage.runtime.redis;

import dev.backstage.runtime.spi.ConsumerSettings;
import dev.backstage.runtime.spi.DeliverySink;
import dev.backstage.runtime.spi.JobConsumer;
import dev.backstage.runtime.spi.JobsCapability;
import dev.backstage.runtime.spi.OutgoingJob;
import java.util.List;

/** Jobs on Redis Streams: {@code XADD {p}:{q}} to publish, consumer groups to consume. */
final class RedisJobs implements JobsCapability {
    static final List<String> DEFAULT_QUEUES = List.of("urgent", "default", "low");

    private final RedisProvider provider;

    private final java.util.List<RedisConsumer> consumers = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** The consumers this provider started, for tests that observe their state. */
    java.util.List<RedisConsumer> consumers() {
        return consumers;
    }

    RedisJobs(RedisProvider provider) {
        this.provider = provider;
    }

    @Override
    public String publish(OutgoingJob job) {
        String stream = provider.keys().stream(job.queue());
        String id = provider.sync()
                .xadd(stream, JobEntryCodec.fields(job.taskName(), job.payloadJson(), job.enqueuedAtMs(), job.meta()));
        provider.awaitReplicas(stream);
        return id;
    }

    @Override
    public JobConsumer consume(ConsumerSettings settings, DeliverySink sink) {
        RedisConsumer consumer = new RedisConsumer(provider, settings, sink);
        consumer.start();
        consumers.add(consumer);
        return consumer;
    }

    @Override
    public List<String> defaultQueues() {
        return DEFAULT_QUEUES;
    }

    RedisProvider provider() {
        return provider;
    }
}
