package dev.backstage.runtime.core;

import dev.backstage.runtime.api.TaskOptions;
import dev.backstage.runtime.api.TopicContext;
import dev.backstage.runtime.api.TopicHandler;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.TopicDelivery;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What settlement means for one subscription's topic messages, or one broadcast task's ({@code kind} "topic" or
 * "broadcast"): the rule jobs follow ({@link RetryPolicy} with the worker's allowance, docs/wire-format.md), where a
 * job would be dead-lettered the message is dropped with the reason — logged and counted as a dead letter, and kept
 * with the reason where the provider has a dead-letter destination for it
 * ({@link TopicDelivery#deadLetterDestination()}). An unreadable message or payload is dropped at once. The slot
 * frees when the ack completes. Log lines go to {@link TopicProcessor}'s logger.
 */
final class TopicOutcomes<T> implements OutcomePolicy<TopicDelivery> {
    private static final Logger log = LoggerFactory.getLogger(TopicProcessor.class);

    private final String kind;
    private final Class<T> payloadType;
    private final TopicHandler<T> handler;
    private final PayloadCodec codec;
    private final RetryPolicy policy;
    private final Duration hardTimeout;
    private final WorkerMetrics metrics;

    TopicOutcomes(
            String kind,
            Class<T> payloadType,
            TopicHandler<T> handler,
            PayloadCodec codec,
            RetryPolicy policy,
            Duration hardTimeout,
            WorkerMetrics metrics) {
        this.kind = kind;
        this.payloadType = payloadType;
        this.handler = handler;
        this.codec = codec;
        this.policy = policy;
        this.hardTimeout = hardTimeout;
        this.metrics = metrics;
    }

    @Override
    public Logger log() {
        return log;
    }

    @Override
    public String label(TopicDelivery delivery) {
        return kind + " '" + delivery.topic() + "' message " + delivery.messageId();
    }

    @Override
    public Verdict prepare(TopicDelivery delivery) {
        if (delivery.malformedReason().isPresent()) {
            return new Verdict.Reject(delivery.malformedReason().get());
        }
        int count = delivery.deliveryCount();
        if (policy.exhaustedBeforeRun(count, JobMeta.NONE, TaskOptions.defaults())) {
            return new Verdict.Reject("delivered " + count + " times without settling (max " + policy.maxDeliveries()
                    + " retries); not run again");
        }
        try {
            return new Verdict.Run(codec.decode(delivery.payload(), payloadType));
        } catch (PayloadCodec.MalformedPayloadException e) {
            return new Verdict.Reject(e.getMessage());
        }
    }

    @Override
    public Duration timeout(TopicDelivery delivery) {
        return hardTimeout;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void invoke(TopicDelivery delivery, Object payload) throws Exception {
        handler.handle(context(delivery), (T) payload); // decoded to payloadType by prepare
    }

    @Override
    public CompletionStage<Void> ack(TopicDelivery delivery) {
        metrics.acked();
        return delivery.ack();
    }

    @Override
    public boolean ackFreesSlotAtOnce() {
        return false;
    }

    @Override
    public RetryPolicy.Decision afterFailure(TopicDelivery delivery) {
        return policy.afterFailure(delivery.deliveryCount(), JobMeta.NONE, TaskOptions.defaults());
    }

    @Override
    public CompletionStage<Void> retry(TopicDelivery delivery, Duration delay, String error) {
        log.debug(
                "{} failed (delivery {}): {}; retry in {} ms",
                label(delivery),
                delivery.deliveryCount(),
                error,
                delay.toMillis());
        metrics.retried();
        return delivery.retry(delay, error);
    }

    @Override
    public CompletionStage<Void> giveUp(TopicDelivery delivery, String error) {
        return drop(
                delivery,
                "failed " + delivery.deliveryCount() + " times (max " + policy.maxDeliveries() + " retries): " + error);
    }

    @Override
    public CompletionStage<Void> reject(TopicDelivery delivery, String reason) {
        return drop(delivery, reason);
    }

    private CompletionStage<Void> drop(TopicDelivery delivery, String reason) {
        Optional<String> kept = delivery.deadLetterDestination();
        if (kept.isPresent()) {
            log.warn("{} dead-lettered to {}: {}", label(delivery), kept.get(), reason);
        } else {
            log.warn("{} dropped (there is no dead-letter destination): {}", label(delivery), reason);
        }
        metrics.deadLettered();
        return delivery.drop(reason);
    }

    @Override
    public String giveUpName() {
        return "drop";
    }

    @Override
    public void abandon(TopicDelivery delivery) {
        delivery.abandon();
    }

    private static TopicContext context(TopicDelivery delivery) {
        return new TopicContext() {
            @Override
            public String topic() {
                return delivery.topic();
            }

            @Override
            public String messageId() {
                return delivery.messageId();
            }

            @Override
            public int deliveryCount() {
                return delivery.deliveryCount();
            }

            @Override
            public Instant publishedAt() {
                return Instant.ofEpochMilli(delivery.publishedAtMs());
            }
        };
    }
}
