package dev.backstage.runtime.rabbitmq;

import dev.backstage.runtime.spi.DeclaredObject;
import dev.backstage.runtime.spi.OutgoingJob;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Delays through the {@code rabbitmq_delayed_message_exchange} plugin (docs/wire-format.md): exchange
 * {@code {p}.delayed} of type {@code x-delayed-message} ({@code x-delayed-type=direct}); each work queue
 * bound with its bare queue name as routing key; the job body published with header {@code x-delay: <ms>}.
 *
 * <p>Not exercised by this project's tests: the test broker has no plugin (detection picks the fallback).
 * Publishes are not {@code mandatory} because the plugin routes only when the delay ends.
 */
final class DelayedExchangeDelays implements RabbitMqDelays {
    static final String BACKEND = "rabbitmq-delayed-exchange";

    private final RabbitMqNames names;
    private final BrokerAdmin admin;
    private final RabbitMqJobs jobs;
    private final Set<String> bound = ConcurrentHashMap.newKeySet();

    DelayedExchangeDelays(RabbitMqNames names, BrokerAdmin admin, RabbitMqJobs jobs) {
        this.names = names;
        this.admin = admin;
        this.jobs = jobs;
    }

    @Override
    public String backend() {
        return BACKEND;
    }

    @Override
    public RabbitMqJobs jobs() {
        return jobs;
    }

    private void ensureBinding(String queue) {
        if (bound.contains(queue)) {
            return;
        }
        jobs.declarations().ensureJobQueue(queue);
        admin.call(
                "bind " + names.workQueue(queue) + " to " + names.delayedExchange(),
                ch -> ch.queueBind(names.workQueue(queue), names.delayedExchange(), queue));
        bound.add(queue);
    }

    @Override
    public CompletableFuture<Void> scheduleAsync(OutgoingJob job, Instant runAt) {
        try {
            long delayMs = Duration.between(Instant.now(), runAt).toMillis();
            if (delayMs <= 0) {
                return jobs.publishAsync(job);
            }
            if (delayMs > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(
                        "delay of " + delayMs + " ms exceeds what x-delay carries (" + Integer.MAX_VALUE + " ms)");
            }
            ensureBinding(job.queue());
            byte[] body = jobs.codec().encode(job, job.jobId());
            return jobs.publisher()
                    .publish(
                            names.delayedExchange(),
                            job.queue(),
                            false,
                            RabbitMqJobs.properties(job.jobId(), Map.of("x-delay", (int) delayMs)),
                            body);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public List<DeclaredObject> declare(List<String> queues) {
        boolean existed = admin.exchangeExists(names.delayedExchange());
        admin.call(
                "declare " + names.delayedExchange(),
                ch -> ch.exchangeDeclare(
                        names.delayedExchange(),
                        DelayedExchangeDetector.EXCHANGE_TYPE,
                        true,
                        false,
                        Map.of("x-delayed-type", "direct")));
        List<DeclaredObject> result = new ArrayList<>();
        result.add(DeclaredObject.of(
                "exchange",
                names.delayedExchange(),
                existed ? DeclaredObject.State.EXISTED : DeclaredObject.State.CREATED));
        for (String queue : queues) {
            bound.remove(queue);
            ensureBinding(queue);
        }
        return result;
    }

    @Override
    public List<DeclaredObject> inspect(List<String> queues) {
        return List.of(DeclaredObject.of(
                "exchange",
                names.delayedExchange(),
                admin.exchangeExists(names.delayedExchange())
                        ? DeclaredObject.State.EXISTED
                        : DeclaredObject.State.MISSING));
    }

    @Override
    public List<DeclaredObject> delete() {
        admin.call("delete " + names.delayedExchange(), ch -> ch.exchangeDelete(names.delayedExchange()));
        bound.clear();
        return List.of(DeclaredObject.of("exchange", names.delayedExchange(), DeclaredObject.State.DELETED));
    }
}
