package dev.backstage.runtime.redis;

import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.DefaultEventLoopGroupProvider;
import io.lettuce.core.resource.EventLoopGroupProvider;
import io.netty.channel.EventLoopGroup;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import java.util.concurrent.TimeUnit;

/**
 * lettuce's client resources for a {@link SharedRedisConnection} (the client behind the providers of one URL): the
 * threads (I/O event loops, computation, timer) are the process's, shared by every client; the event bus is the
 * client's own, so the reconnect events it reads are those of its own connections.
 *
 * <p>A {@code RedisClient} created without resources starts its own set of threads. The operator opens a provider
 * per topology for declaring and another for backlog probes: with a thousand topologies that was thousands of
 * threads. Shared, the I/O groups live as long as the process: lettuce's provider would shut a group down when the
 * last client using it shuts down, and a client connecting at that moment got a terminated event loop and a
 * handshake that never finished (seen in a full-suite run: one pool's probe dropped while another pool's started).
 * The computation group and timer are daemon threads started on first use.
 *
 * <p>Command latency recording is off: nothing reads it, and with HdrHistogram on the classpath (Micrometer brings
 * it) lettuce would keep histograms per connection and command type and time every command.
 */
final class RedisClientResources {
    private static final EventLoopGroupProvider EVENT_LOOPS =
            new ProcessWide(new DefaultEventLoopGroupProvider(DefaultClientResources.DEFAULT_IO_THREADS));
    private static final EventExecutorGroup COMPUTATION = new DefaultEventExecutorGroup(
            DefaultClientResources.DEFAULT_COMPUTATION_THREADS,
            new DefaultThreadFactory("lettuce-eventExecutorLoop", true));
    private static final Timer TIMER = new HashedWheelTimer(new DefaultThreadFactory("lettuce-timer", true));

    private RedisClientResources() {}

    /** Resources for one client; shut them down with it (the shared threads stay). */
    static ClientResources create() {
        return DefaultClientResources.builder()
                .eventLoopGroupProvider(EVENT_LOOPS)
                .eventExecutorGroup(COMPUTATION)
                .timer(TIMER)
                .commandLatencyRecorder(CommandLatencyRecorder.disabled())
                .build();
    }

    /** Hands out the delegate's groups and never releases or shuts them down: they are the process's. */
    private static final class ProcessWide implements EventLoopGroupProvider {
        private final EventLoopGroupProvider delegate;

        ProcessWide(EventLoopGroupProvider delegate) {
            this.delegate = delegate;
        }

        @Override
        public <T extends EventLoopGroup> T allocate(Class<T> type) {
            return delegate.allocate(type);
        }

        @Override
        public int threadPoolSize() {
            return delegate.threadPoolSize();
        }

        @Override
        public Future<Boolean> release(EventExecutorGroup group, long quietPeriod, long timeout, TimeUnit unit) {
            return ImmediateEventExecutor.INSTANCE.newSucceededFuture(true);
        }

        @Override
        public Future<Boolean> shutdown(long quietPeriod, long timeout, TimeUnit unit) {
            return ImmediateEventExecutor.INSTANCE.newSucceededFuture(true);
        }
    }
}
