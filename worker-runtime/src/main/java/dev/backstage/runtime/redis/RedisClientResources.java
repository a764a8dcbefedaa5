package dev.backstage.runtime.redis;

import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.DefaultEventLoopGroupProvider;
import io.lettuce.core.resource.EventLoopGroupProvider;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutorGroup;

/**
 * lettuce's client resources for a {@link RedisProvider}: the threads (I/O event loops, computation, timer) are
 * the process's, shared by every provider; the event bus is the provider's own, so the reconnect events it reads
 * are those of its own connections.
 *
 * <p>A {@code RedisClient} created without resources starts its own set of threads. The operator opens a provider
 * per topology for declaring and another for backlog probes: with a thousand topologies that was thousands of
 * threads. Shared, the I/O groups are reference-counted by lettuce (released when the last client using them shuts
 * down); the computation group and timer are daemon threads started on first use.
 *
 * <p>Command latency recording is off: nothing reads it, and with HdrHistogram on the classpath (Micrometer brings
 * it) lettuce would keep histograms per connection and command type and time every command.
 */
final class RedisClientResources {
    private static final EventLoopGroupProvider EVENT_LOOPS =
            new DefaultEventLoopGroupProvider(DefaultClientResources.DEFAULT_IO_THREADS);
    private static final EventExecutorGroup COMPUTATION = new DefaultEventExecutorGroup(
            DefaultClientResources.DEFAULT_COMPUTATION_THREADS, new DefaultThreadFactory("lettuce-eventExecutorLoop", true));
    private static final Timer TIMER = new HashedWheelTimer(new DefaultThreadFactory("lettuce-timer", true));

    private RedisClientResources() {}

    /** Resources for one provider; shut them down with its client (the shared threads stay). */
    static ClientResources create() {
        return DefaultClientResources.builder()
                .eventLoopGroupProvider(EVENT_LOOPS)
                .eventExecutorGroup(COMPUTATION)
                .timer(TIMER)
                .commandLatencyRecorder(CommandLatencyRecorder.disabled())
                .build();
    }
}
