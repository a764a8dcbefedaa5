package dev.backstage.runtime.core;

import dev.backstage.runtime.api.BroadcastHandler;
import dev.backstage.runtime.api.Capability;
import dev.backstage.runtime.api.TopicHandler;
import dev.backstage.runtime.spi.BackstageException;
import dev.backstage.runtime.spi.ConsumerSettings;
import dev.backstage.runtime.spi.JobConsumer;
import dev.backstage.runtime.spi.Liveness;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.Subscription;
import dev.backstage.runtime.spi.TopicConsumer;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's lifecycle: start (check capabilities, start consumers and delay promotion), run until
 * asked to stop, then shut down gracefully (stop fetching → let in-flight work finish within the grace
 * → abandon the rest to the broker → flush acks → close).
 *
 * <p>Kept as one class: start and the graceful shutdown act on the same consumers, promoters and handler pool, and the
 * order of the shutdown steps (stop fetching, wait out the grace, abandon, flush the acks, close) is what makes it
 * graceful, so the steps stay in one place.
 */
public final class WorkerEngine {
    private static final Logger log = LoggerFactory.getLogger(WorkerEngine.class);

    private enum State {
        NEW,
        RUNNING,
        STOPPING,
        STOPPED
    }

    private final Provider provider;
    private final CapabilitySet capabilities;
    private final WorkerSettings settings;
    private final TaskRegistry registry;
    private final PayloadCodec codec;
    private final JobProducer producer;
    private final InFlightGate gate;
    private final WorkerMetrics metrics;
    private final List<AutoCloseable> ownedResources;
    private final ExecutorService handlers;
    private final ScheduledExecutorService watchdog;
    private final ExecutorService timeoutSettlement;
    private final RetryPolicy retryPolicy;
    private final DeliveryProcessor processor;
    private final List<PendingSubscription<?>> subscriptions = new ArrayList<>();
    private final BroadcastRouter broadcasts;
    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile JobConsumer jobConsumer;
    private final List<TopicConsumer> topicConsumers = new CopyOnWriteArrayList<>();
    private volatile AutoCloseable promotion;

    public WorkerEngine(
            Provider provider,
            CapabilitySet capabilities,
            WorkerSettings settings,
            TaskRegistry registry,
            PayloadCodec codec,
            MeterRegistry meters,
            List<AutoCloseable> ownedResources) {
        this.provider = provider;
        this.capabilities = capabilities;
        this.settings = settings;
        this.registry = registry;
        this.codec = codec;
        this.ownedResources = List.copyOf(ownedResources);
        // The worker holds at most max(prefetch, concurrency) unsettled deliveries and runs at most
        // `concurrency` handlers; deliveries beyond that wait in the handler queue (read-ahead).
        this.gate = new InFlightGate(Math.max(settings.prefetch(), settings.concurrency()));
        this.metrics = new WorkerMetrics(meters, gate::inFlight);
        this.producer = new JobProducer(capabilities, codec);
        this.handlers = HandlerPool.create("backstage-handler", settings.concurrency());
        this.watchdog = Executors.newSingleThreadScheduledExecutor(new NamedThreads("backstage-timeout", true));
        // Unbounded but idle-trimmed: each thread settles one timed-out delivery, however slow its backend.
        this.timeoutSettlement = Executors.newCachedThreadPool(new NamedThreads("backstage-timeout-settle", true));
        this.retryPolicy = new RetryPolicy(settings.maxDeliveries(), settings.defaultBackoff());
        this.broadcasts = new BroadcastRouter(metrics);
        this.processor = new DeliveryProcessor(
                registry,
                retryPolicy,
                codec,
                producer,
                gate,
                handlers,
                watchdog,
                timeoutSettlement,
                metrics,
                settings.unknownTaskPolicy(),
                settings.defaultHardTimeout());
    }

    public JobProducer producer() {
        return producer;
    }

    public String publish(String topic, Object payload) {
        return capabilities.topics().publish(topic, codec.encode(payload));
    }

    /** Sends a broadcast to every running worker (needs the broadcast capability); returns the message id. */
    public String broadcast(String task, Object payload) {
        if (task == null || task.isBlank()) {
            throw new IllegalArgumentException("broadcast task name must not be blank");
        }
        return capabilities
                .broadcast()
                .send(task, payload instanceof JobProducer.RawJson raw ? raw.json() : codec.encode(payload));
    }

    public <T> void onBroadcast(String task, Class<T> type, BroadcastHandler<T> handler) {
        if (state.get() != State.NEW) {
            throw new IllegalStateException("onBroadcast before start()");
        }
        capabilities.broadcast(); // fails now, with the hint, if nothing supplies broadcast
        broadcasts.register(
                task,
                handler,
                adapted -> new TopicProcessor<>(
                        "broadcast",
                        type,
                        adapted,
                        codec,
                        gate,
                        handlers,
                        retryPolicy,
                        watchdog,
                        timeoutSettlement,
                        settings.defaultHardTimeout(),
                        metrics));
    }

    public CapabilitySet capabilities() {
        return capabilities;
    }

    public WorkerMetrics metrics() {
        return metrics;
    }

    public int inFlight() {
        return gate.inFlight();
    }

    public boolean isRunning() {
        return state.get() == State.RUNNING;
    }

    /**
     * Why this worker can no longer do its work — a fetch or poll loop, the reclaimer or the delay promoter
     * stopped for good — or empty while everything runs. The container's {@code /healthz} fails on it, so the
     * pod is restarted instead of sitting Ready and consuming nothing.
     */
    public Optional<String> failure() {
        if (state.get() != State.RUNNING) {
            return Optional.empty();
        }
        List<String> reasons = new ArrayList<>();
        if (jobConsumer != null) {
            jobConsumer.failure().ifPresent(reasons::add);
        }
        for (TopicConsumer consumer : topicConsumers) {
            consumer.failure().ifPresent(reasons::add);
        }
        if (promotion instanceof Liveness live) {
            live.failure().ifPresent(reasons::add);
        }
        return reasons.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", reasons));
    }

    public <T> void subscribe(Subscription subscription, Class<T> type, TopicHandler<T> handler) {
        if (state.get() != State.NEW) {
            throw new IllegalStateException("subscribe before start()");
        }
        capabilities.topics(); // fails now, with the hint, if nothing supplies topics
        subscriptions.add(new PendingSubscription<>(subscription, type, handler));
    }

    public synchronized void start() {
        if (!state.compareAndSet(State.NEW, State.RUNNING)) {
            throw new IllegalStateException("worker already started");
        }
        Set<Capability> required = EnumSet.of(Capability.JOBS);
        if (capabilities.jobs().retryNeedsDelays()) {
            required.add(Capability.DELAYS);
        }
        if (!subscriptions.isEmpty()) {
            required.add(Capability.TOPICS);
        }
        if (!broadcasts.isEmpty()) {
            required.add(Capability.BROADCAST);
        }
        try {
            capabilities.require(required);
        } catch (BackstageException e) {
            state.set(State.STOPPED);
            stopped.countDown();
            throw e;
        }
        log.info("{}", capabilities.report());
        if (registry.isEmpty() && subscriptions.isEmpty() && broadcasts.isEmpty()) {
            log.warn("no tasks registered: every delivery will be handled as an unknown task");
        }
        List<String> queues = settings.queues().isEmpty() ? capabilities.jobs().defaultQueues() : settings.queues();
        log.info(
                "worker {} starting: queues {}, concurrency {}, prefetch {}, maxDeliveries {}, tasks {}",
                settings.consumerId(),
                queues,
                settings.concurrency(),
                settings.prefetch(),
                settings.maxDeliveries(),
                registry.names());
        promotion = capabilities
                .delaysIfPresent()
                .map(d -> d.startPromotion(capabilities.jobs()))
                .orElse(null);
        jobConsumer = capabilities
                .jobs()
                .consume(
                        new ConsumerSettings(
                                queues,
                                settings.consumerId(),
                                settings.prefetch(),
                                gate,
                                capabilities.delaysIfPresent()),
                        processor);
        for (PendingSubscription<?> s : subscriptions) {
            topicConsumers.add(s.open(this));
        }
        if (!broadcasts.isEmpty()) {
            log.info("worker {} listening to broadcasts of tasks {}", settings.consumerId(), broadcasts.tasks());
            topicConsumers.add(capabilities.broadcast().listen(settings.consumerId(), broadcasts));
        }
    }

    /** Starts (if needed) and blocks until {@link #shutdown()} completes, e.g. from a SIGTERM hook. */
    public void run() throws InterruptedException {
        if (state.get() == State.NEW) {
            start();
        }
        stopped.await();
    }

    /** Graceful shutdown; idempotent. Returns when everything is closed. */
    public void shutdown() {
        State previous = state.getAndSet(State.STOPPING);
        if (previous == State.STOPPED || previous == State.STOPPING) {
            awaitStopped();
            return;
        }
        long started = System.nanoTime();
        gate.beginStopping();
        if (jobConsumer != null) {
            jobConsumer.stopFetching();
        }
        topicConsumers.forEach(TopicConsumer::close);
        boolean drained;
        try {
            drained = gate.awaitDrained(settings.shutdownGrace());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            drained = false;
        }
        if (!drained) {
            log.warn(
                    "shutdown grace of {} ms elapsed with {} deliveries in flight; they stay with the broker",
                    settings.shutdownGrace().toMillis(),
                    processor.running());
            processor.abandonAll();
        }
        closeQuietly(jobConsumer, "job consumer");
        closeQuietly(promotion, "delay promotion");
        handlers.shutdownNow();
        watchdog.shutdownNow();
        timeoutSettlement.shutdown();
        try {
            handlers.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (AutoCloseable resource : ownedResources) {
            closeQuietly(resource, "supplied capability");
        }
        closeQuietly(provider, "provider");
        log.info(
                "worker {} stopped in {} ms (drained: {})",
                settings.consumerId(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                drained);
        state.set(State.STOPPED);
        stopped.countDown();
    }

    private void awaitStopped() {
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(AutoCloseable resource, String what) {
        if (resource == null) {
            return;
        }
        try {
            resource.close();
        } catch (Exception e) {
            log.warn("closing {} failed: {}", what, e.toString());
        }
    }

    private record PendingSubscription<T>(Subscription subscription, Class<T> type, TopicHandler<T> handler) {
        TopicConsumer open(WorkerEngine engine) {
            TopicProcessor<T> sink = new TopicProcessor<>(
                    "topic",
                    type,
                    handler,
                    engine.codec,
                    engine.gate,
                    engine.handlers,
                    engine.retryPolicy,
                    engine.watchdog,
                    engine.timeoutSettlement,
                    engine.settings.defaultHardTimeout(),
                    engine.metrics);
            return engine.capabilities.topics().subscribe(subscription, engine.settings.consumerId(), sink);
        }
    }
}
