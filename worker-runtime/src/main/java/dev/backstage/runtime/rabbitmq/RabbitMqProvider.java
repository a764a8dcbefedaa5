package dev.backstage.runtime.rabbitmq;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.backstage.runtime.core.NamedThreads;
import dev.backstage.runtime.spi.BacklogProbe;
import dev.backstage.runtime.spi.BroadcastCapability;
import dev.backstage.runtime.spi.ConfigurationException;
import dev.backstage.runtime.spi.DeadLetterQueue;
import dev.backstage.runtime.spi.DelaysCapability;
import dev.backstage.runtime.spi.JobsCapability;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderHealth;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.TopicsCapability;
import dev.backstage.runtime.spi.TopologyDeclarer;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RabbitMQ provider (docs/wire-format.md): jobs, delays (plugin, TTL-ladder fallback, or none when
 * supplied elsewhere), topics, broadcast, the declarer, the backlog probe and the dead-letter queue.
 *
 * <pre>{@code
 * try (Worker worker = Worker.builder()
 *         .provider(RabbitMqProvider.connect(ProviderSettings.of("rabbitmq", "amqp://guest:guest@localhost:5672")))
 *         .build()) { ... }
 * }</pre>
 *
 * <p>Connection loss: amqp-client reconnects automatically; unacked work goes back to the queues and is
 * redelivered; consumers resubscribe; {@link #health()} reports the outage meanwhile; publishing while
 * down fails at once with {@link BrokerUnavailableException}. Nothing stops the worker.
 *
 * <p>Two background threads: {@code backstage-rabbitmq-confirms} (completes publish confirms and their
 * continuations, times out unconfirmed publishes) and {@code backstage-rabbitmq-supervisor} (keeps
 * consumers subscribed, every {@code recoveryIntervalMs}). Both stop in {@link #close()}.
 */
public final class RabbitMqProvider implements Provider {
    private static final Logger log = LoggerFactory.getLogger(RabbitMqProvider.class);

    private final RabbitMqSettings settings;
    private final RabbitMqConnections connections;
    private final ScheduledExecutorService confirms;
    private final ScheduledExecutorService supervisor;
    private final ConfirmingPublisher publisher;
    private final RabbitMqJobs jobs;
    private final Optional<RabbitMqDelays> delays;
    private final RabbitMqTopics topics;
    private final RabbitMqBroadcast broadcast;
    private final RabbitMqDeclarer declarer;
    private final RabbitMqBacklogProbe backlogProbe;
    private final RabbitMqDeadLetters deadLetters;
    private final AtomicBoolean closed = new AtomicBoolean();

    public static RabbitMqProvider connect(ProviderSettings settings) {
        return connect(RabbitMqSettings.from(settings));
    }

    public static RabbitMqProvider connect(RabbitMqSettings settings) {
        RabbitMqConnections connections = RabbitMqConnections.open(settings);
        ScheduledThreadPoolExecutor confirms =
                new ScheduledThreadPoolExecutor(1, new NamedThreads("backstage-rabbitmq-confirms", true));
        confirms.setRemoveOnCancelPolicy(true); // every confirmed publish cancels its timeout: drop it at once
        ScheduledExecutorService supervisor =
                Executors.newSingleThreadScheduledExecutor(new NamedThreads("backstage-rabbitmq-supervisor", true));
        try {
            return new RabbitMqProvider(settings, connections, confirms, supervisor);
        } catch (RuntimeException e) {
            confirms.shutdownNow();
            supervisor.shutdownNow();
            connections.close();
            throw e;
        }
    }

    private RabbitMqProvider(
            RabbitMqSettings settings,
            RabbitMqConnections connections,
            ScheduledExecutorService confirms,
            ScheduledExecutorService supervisor) {
        this.settings = settings;
        this.connections = connections;
        this.confirms = confirms;
        this.supervisor = supervisor;
        ObjectMapper mapper = new ObjectMapper();
        RabbitMqNames names = settings.names();
        BrokerAdmin admin = new BrokerAdmin(connections.publishing());
        this.publisher = new ConfirmingPublisher(connections.publishing(), settings.confirmTimeout(), confirms);
        this.jobs = new RabbitMqJobs(
                settings,
                new JobBodyCodec(mapper),
                publisher,
                new QueueDeclarations(names, admin, settings.queueArguments()),
                connections::consuming,
                supervisor);
        this.delays = resolveDelays(settings, names, admin, connections, jobs);
        this.topics = new RabbitMqTopics(settings, mapper, publisher, admin, connections::consuming, supervisor);
        this.broadcast = new RabbitMqBroadcast(settings, mapper, publisher, admin, connections::consuming, supervisor);
        this.declarer = new RabbitMqDeclarer(names, admin, delays, settings.queueArguments());
        this.backlogProbe = new RabbitMqBacklogProbe(
                names,
                admin,
                settings.managementUrl()
                        .map(first -> new ManagementApi(
                                settings.managementUrls(),
                                connections.username(),
                                connections.password(),
                                settings.secure() ? settings.tls().sslContext() : null,
                                mapper)),
                connections.virtualHost());
        this.deadLetters = new RabbitMqDeadLetters(names, admin, jobs);
        log.info(
                "rabbitmq provider ready: prefix '{}', delays {}",
                settings.prefix(),
                delays.map(DelaysCapability::backend).orElse("supplied elsewhere (delayedExchange=supplied)"));
    }

    private static Optional<RabbitMqDelays> resolveDelays(
            RabbitMqSettings settings,
            RabbitMqNames names,
            BrokerAdmin admin,
            RabbitMqConnections connections,
            RabbitMqJobs jobs) {
        DelayMode mode = settings.delayMode();
        if (mode == DelayMode.SUPPLIED) {
            return Optional.empty();
        }
        if (mode == DelayMode.AUTO || mode == DelayMode.PLUGIN) {
            boolean plugin = new DelayedExchangeDetector(connections).detect(names.delayedExchange());
            if (plugin) {
                return Optional.of(new DelayedExchangeDelays(names, admin, jobs));
            }
            if (mode == DelayMode.PLUGIN) {
                throw new ConfigurationException("delayedExchange=plugin, but the broker has no x-delayed-message "
                        + "exchange type: enable the rabbitmq_delayed_message_exchange plugin, or set delayedExchange "
                        + "to auto or fallback (built-in TTL ladder), or to supplied and give the worker a delays "
                        + "capability");
            }
        }
        return Optional.of(new FallbackDelays(names, DelayLadder.standard(), admin, jobs));
    }

    @Override
    public String name() {
        return "rabbitmq";
    }

    @Override
    public JobsCapability jobs() {
        return jobs;
    }

    @Override
    public Optional<DelaysCapability> delays() {
        return delays.map(d -> d);
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
        return backlogProbe;
    }

    @Override
    public DeadLetterQueue deadLetters() {
        return deadLetters;
    }

    @Override
    public ProviderHealth health() {
        if (closed.get()) {
            return ProviderHealth.down("rabbitmq provider closed");
        }
        return connections.health();
    }

    /** The delay path in use: {@code PLUGIN}, {@code FALLBACK} or {@code SUPPLIED} (never {@code AUTO}). */
    public DelayMode delayMode() {
        return delays.map(d -> d instanceof DelayedExchangeDelays ? DelayMode.PLUGIN : DelayMode.FALLBACK)
                .orElse(DelayMode.SUPPLIED);
    }

    public RabbitMqSettings settings() {
        return settings;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        publisher.close();
        supervisor.shutdownNow();
        connections.close();
        confirms.shutdown();
        try {
            if (!confirms.awaitTermination(2, TimeUnit.SECONDS)) {
                confirms.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            confirms.shutdownNow();
        }
        log.info("rabbitmq provider closed (prefix '{}')", settings.prefix());
    }
}
