package dev.backstage.runtime.core;

import dev.backstage.runtime.api.TopicHandler;
import dev.backstage.runtime.spi.TopicDelivery;
import dev.backstage.runtime.spi.TopicSink;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Where one subscription's topic messages (and one broadcast task's messages, {@code kind} "broadcast") come in:
 * each runs on the handler threads and a {@link SettlementMachine} settles it by the topic rules
 * ({@link TopicOutcomes}): success → ack; failure or hard timeout → retry after the back-off while
 * {@code deliveryCount <= max}, else drop with the reason (kept where the provider has a dead-letter destination for
 * topics); an unreadable message or payload → dropped at once.
 */
final class TopicProcessor<T> implements TopicSink {
    private final InFlightGate gate;
    private final ExecutorService handlers;
    private final TopicOutcomes<T> outcomes;
    private final SettlementServices services;
    private final Runnable release;

    TopicProcessor(
            String kind,
            Class<T> payloadType,
            TopicHandler<T> handler,
            PayloadCodec codec,
            InFlightGate gate,
            ExecutorService handlers,
            RetryPolicy policy,
            ScheduledExecutorService watchdog,
            Executor timeoutSettlement,
            Duration hardTimeout,
            WorkerMetrics metrics) {
        this.gate = gate;
        this.handlers = handlers;
        this.outcomes = new TopicOutcomes<>(kind, payloadType, handler, codec, policy, hardTimeout, metrics);
        this.services = new SettlementServices(watchdog, timeoutSettlement, metrics);
        this.release = gate::release;
    }

    @Override
    public void accept(TopicDelivery delivery) {
        gate.occupy();
        SettlementMachine<TopicDelivery> run = new SettlementMachine<>(delivery, outcomes, services, release);
        try {
            handlers.execute(run::execute);
        } catch (Throwable e) {
            run.abandon(); // shutting down: the broker keeps it
            if (!(e instanceof RejectedExecutionException)) {
                throw e;
            }
        }
    }
}
