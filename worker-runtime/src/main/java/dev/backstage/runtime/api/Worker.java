package dev.backstage.runtime.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.backstage.runtime.spi.Backoff;
import dev.backstage.runtime.spi.BroadcastCapability;
import dev.backstage.runtime.spi.ConfigurationException;
import dev.backstage.runtime.spi.DedupeCapability;
import dev.backstage.runtime.spi.DelaysCapability;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.Subscription;
import dev.backstage.runtime.spi.TopicsCapability;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A Backstage worker: register tasks by name, then {@link #run()} until SIGTERM (or {@link #start()}
 * and {@link #close()} yourself). The same object is a producer ({@link #enqueue}).
 *
 * <p>This package only declares the worker; {@link Builder#build()} gets the implementation from the
 * {@link WorkerFactory} on the class path (the runtime's core), so {@code api} never depends on {@code core}.
 *
 * <p>Delivery is at-least-once: a handler may run more than once for the same job (after a crash, a
 * lost ack or a timeout). Use {@link TaskContext#jobId()} as the idempotency key where that matters.
 *
 * <pre>{@code
 * try (Worker worker = Worker.builder().provider(RedisProvider.connect("redis://localhost:6379")).build()) {
 *     worker.register("processOrder", Order.class, (ctx, order) -> Next.task("sendReceipt", order.receipt()));
 *     worker.register("sendReceipt", Receipt.class, (ctx, receipt) -> Next.done());
 *     worker.run();
 * }
 * }</pre>
 */
public interface Worker extends AutoCloseable {

    static Builder builder() {
        return new Builder();
    }

    default <T> Worker register(String taskName, Class<T> payloadType, TaskHandler<T> handler) {
        return register(taskName, payloadType, TaskOptions.defaults(), handler);
    }

    <T> Worker register(String taskName, Class<T> payloadType, TaskOptions options, TaskHandler<T> handler);

    <T> Worker subscribe(Subscription subscription, Class<T> payloadType, TopicHandler<T> handler);

    default EnqueueResult enqueue(String taskName, Object payload) {
        return producer().enqueue(taskName, payload, EnqueueOptions.defaults());
    }

    default EnqueueResult enqueue(String taskName, Object payload, EnqueueOptions options) {
        return producer().enqueue(taskName, payload, options);
    }

    /** Enqueue with a delay (needs the delays capability). */
    default EnqueueResult schedule(String taskName, Object payload, Duration delay) {
        return enqueue(taskName, payload, EnqueueOptions.defaults().delay(delay));
    }

    default EnqueueResult schedule(String taskName, Object payload, Duration delay, EnqueueOptions options) {
        return enqueue(taskName, payload, options.delay(delay));
    }

    /** Publish to a topic (needs the topics capability). */
    String publish(String topic, Object payload);

    /**
     * Sends {@code payload} under {@code task} to every running worker that registered {@link #onBroadcast} for
     * it (needs the broadcast capability); returns the broker's message id. Workers that start later, or are down
     * meanwhile, do not receive it.
     */
    String broadcast(String task, Object payload);

    /**
     * Runs {@code handler} on this worker for every broadcast of {@code task} sent after {@link #start()}; settled
     * by the topic rule (a failure is retried on this worker only). Needs the broadcast capability.
     */
    <T> Worker onBroadcast(String task, Class<T> payloadType, BroadcastHandler<T> handler);

    /** Checks capabilities, logs the capability report and starts consuming. */
    Worker start();

    /** Starts (if needed), installs a SIGTERM hook and blocks until shut down. */
    void run() throws InterruptedException;

    boolean isRunning();

    /**
     * Why this worker can no longer take work (a consumer loop, the reclaimer or the delay promoter stopped
     * for good), or empty while it works. A process should exit (or fail its liveness probe) on it.
     */
    Optional<String> failure();

    int inFlight();

    WorkerTotals totals();

    String capabilityReport();

    /** The producer side alone, e.g. for a CLI or a web request handler. */
    Producer producer();

    /** Graceful shutdown within the configured grace period. */
    @Override
    void close();

    /** Builds a {@link Worker}; everything but the provider has a default. */
    final class Builder {
        private Provider provider;
        private DelaysCapability delays;
        private DedupeCapability dedupe;
        private TopicsCapability topics;
        private BroadcastCapability broadcast;
        private final List<AutoCloseable> owned = new ArrayList<>();
        private List<String> queues = List.of();
        private String consumerId;
        private int concurrency = 50;
        private Integer prefetch;
        private int maxDeliveries = WorkerOptions.DEFAULT_MAX_DELIVERIES;
        private Backoff backoff = WorkerOptions.DEFAULT_BACKOFF;
        private Duration shutdownGrace = Duration.ofSeconds(30);
        private UnknownTaskPolicy unknownTaskPolicy = UnknownTaskPolicy.DEAD_LETTER;
        private Duration hardTimeout;
        private MeterRegistry meterRegistry;
        private ObjectMapper objectMapper;

        private Builder() {}

        public Builder provider(Provider value) {
            this.provider = value;
            return this;
        }

        /** Supplies delays from another backend; closed with the worker when it is {@link AutoCloseable}. */
        public Builder delays(DelaysCapability value) {
            this.delays = value;
            own(value);
            return this;
        }

        public Builder dedupe(DedupeCapability value) {
            this.dedupe = value;
            own(value);
            return this;
        }

        public Builder topics(TopicsCapability value) {
            this.topics = value;
            own(value);
            return this;
        }

        /** Supplies broadcast from another backend; closed with the worker when it is {@link AutoCloseable}. */
        public Builder broadcast(BroadcastCapability value) {
            this.broadcast = value;
            own(value);
            return this;
        }

        private void own(Object value) {
            if (value instanceof AutoCloseable closeable && !owned.contains(closeable)) {
                owned.add(closeable);
            }
        }

        public Builder queues(List<String> value) {
            this.queues = List.copyOf(value);
            return this;
        }

        public Builder queues(String... value) {
            return queues(List.of(value));
        }

        public Builder consumerId(String value) {
            this.consumerId = value;
            return this;
        }

        public Builder concurrency(int value) {
            this.concurrency = value;
            return this;
        }

        /**
         * How many unsettled deliveries the worker may hold (running plus read ahead); default = concurrency.
         * Above concurrency, deliveries are fetched ahead and wait for a free handler: higher throughput for
         * short jobs, at the cost of holding work another worker could take.
         */
        public Builder prefetch(int value) {
            this.prefetch = value;
            return this;
        }

        public Builder maxDeliveries(int value) {
            this.maxDeliveries = value;
            return this;
        }

        public Builder backoff(Backoff value) {
            this.backoff = value;
            return this;
        }

        public Builder shutdownGrace(Duration value) {
            this.shutdownGrace = value;
            return this;
        }

        /** The hard timeout for tasks that set none of their own (none by default). */
        public Builder hardTimeout(Duration value) {
            this.hardTimeout = value;
            return this;
        }

        public Builder unknownTasks(UnknownTaskPolicy value) {
            this.unknownTaskPolicy = value;
            return this;
        }

        public Builder meterRegistry(MeterRegistry value) {
            this.meterRegistry = value;
            return this;
        }

        public Builder objectMapper(ObjectMapper value) {
            this.objectMapper = value;
            return this;
        }

        public Worker build() {
            if (provider == null) {
                throw new ConfigurationException("a worker needs a provider: Worker.builder().provider(...)");
            }
            require(concurrency >= 1, "concurrency must be >= 1, got " + concurrency);
            int effectivePrefetch = prefetch == null ? concurrency : prefetch;
            require(effectivePrefetch >= 1, "prefetch must be >= 1, got " + effectivePrefetch);
            require(maxDeliveries >= 1, "maxDeliveries must be >= 1, got " + maxDeliveries);
            Objects.requireNonNull(shutdownGrace, "shutdownGrace");
            require(!shutdownGrace.isNegative(), "shutdownGrace must not be negative, got " + shutdownGrace);
            require(
                    hardTimeout == null || (!hardTimeout.isNegative() && !hardTimeout.isZero()),
                    "hardTimeout must be positive, got " + hardTimeout);
            for (String queue : queues) {
                EnqueueOptions.onQueue(queue); // validates the name
            }
            WorkerOptions options = new WorkerOptions(
                    provider,
                    delays,
                    dedupe,
                    topics,
                    broadcast,
                    List.copyOf(owned),
                    queues,
                    consumerId == null ? defaultConsumerId() : consumerId,
                    concurrency,
                    effectivePrefetch,
                    maxDeliveries,
                    backoff,
                    shutdownGrace,
                    unknownTaskPolicy,
                    hardTimeout,
                    meterRegistry,
                    objectMapper);
            return WorkerFactory.load().create(options);
        }

        private static void require(boolean condition, String message) {
            if (!condition) {
                throw new ConfigurationException(message);
            }
        }

        /** {@code <hostname>-<pid>}, the seed's default consumer name. */
        static String defaultConsumerId() {
            String host;
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (Exception e) {
                host = "worker";
            }
            return host + "-" + ManagementFactory.getRuntimeMXBean().getPid();
        }
    }
}
