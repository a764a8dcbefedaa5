package dev.backstage.runtime.core;

import dev.backstage.runtime.api.TaskOptions;
import dev.backstage.runtime.api.TopicContext;
import dev.backstage.runtime.api.TopicHandler;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.TopicDelivery;
import dev.backstage.runtime.spi.TopicSink;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Settlement of one subscription's topic messages (and of one broadcast task's messages, {@code kind}
 * "broadcast"), by the rule jobs follow ({@link RetryPolicy}, docs/wire-format.md):
 * success → ack; failure or hard timeout → retry after the back-off while {@code deliveryCount <= max}, else
 * drop with the reason (logged and counted as a dead letter; kept with the reason where the provider has a
 * dead-letter destination for topics, {@link TopicDelivery#deadLetterDestination()}); an
 * unreadable message or payload → dropped at once. Every path that frees the slot settles, in a
 * {@code finally}, {@code Error}s included; a settlement that fails abandons the message to the broker.
 */
final class TopicProcessor<T> implements TopicSink {
    private static final Logger log = LoggerFactory.getLogger(TopicProcessor.class);

    private final String kind;
    private final Class<T> payloadType;
    private final TopicHandler<T> handler;
    private final PayloadCodec codec;
    private final InFlightGate gate;
    private final ExecutorService handlers;
    private final RetryPolicy policy;
    private final ScheduledExecutorService watchdog;
    private final Executor timeoutSettlement;
    private final Duration hardTimeout;
    private final WorkerMetrics metrics;

    TopicProcessor(String kind, Class<T> payloadType, TopicHandler<T> handler, PayloadCodec codec, InFlightGate gate,
            ExecutorService handlers, RetryPolicy policy, ScheduledExecutorService watchdog, Executor timeoutSettlement,
            Duration hardTimeout, WorkerMetrics metrics) {
        this.kind = kind;
        this.payloadType = payloadType;
        this.handler = handler;
        this.codec = codec;
        this.gate = gate;
        this.handlers = handlers;
        this.policy = policy;
        this.watchdog = watchdog;
        this.timeoutSettlement = timeoutSettlement;
        this.hardTimeout = hardTimeout;
        this.metrics = metrics;
    }

    @Override
    public void accept(TopicDelivery delivery) {
        gate.occupy();
        Run run = new Run(delivery);
        try {
            handlers.execute(run::execute);
        } catch (Throwable e) {
            run.abandon(); // shutting down: the broker keeps it
            if (!(e instanceof RejectedExecutionException)) {
                throw e;
            }
        }
    }

    private final class Run {
        private final TopicDelivery delivery;
        private final AtomicBoolean claimed = new AtomicBoolean();
        private final AtomicBoolean released = new AtomicBoolean();
        private volatile Thread thread;

        Run(TopicDelivery delivery) {
            this.delivery = delivery;
        }

        void execute() {
            thread = Thread.currentThread();
            try {
                process();
            } catch (Throwable unexpected) {
                log.error("{} '{}' message {}: settling failed; it stays with the broker", kind, delivery.topic(),
                        delivery.messageId(), unexpected);
                if (claimed.compareAndSet(false, true)) {
                    abandonAndRelease();
                }
                if (unexpected instanceof Error error) {
                    throw error;
                }
            } finally {
                thread = null;
                Thread.interrupted();
            }
        }

        private void process() {
            if (delivery.malformedReason().isPresent()) {
                dropNow(delivery.malformedReason().get());
                return;
            }
            int count = delivery.deliveryCount();
            if (policy.exhaustedBeforeRun(count, JobMeta.NONE, TaskOptions.defaults())) {
                dropNow("delivered " + count + " times without settling (max " + policy.maxDeliveries()
                        + " retries); not run again");
                return;
            }
            T payload;
            try {
                payload = codec.decode(delivery.payloadJson(), payloadType);
            } catch (PayloadCodec.MalformedPayloadException e) {
                dropNow(e.getMessage());
                return;
            }
            ScheduledFuture<?> timer = hardTimeout == null ? null
                    : watchdog.schedule(this::timedOut, hardTimeout.toMillis(), TimeUnit.MILLISECONDS);
            long started = System.nanoTime();
            try {
                handler.handle(context(), payload);
            } catch (Throwable failure) {
                metrics.handlerTook(System.nanoTime() - started);
                if (claimed.compareAndSet(false, true)) {
                    cancel(timer);
                    fail(DeliveryProcessor.describe(failure));
                }
                return; // a handler's Error is its failure, as for jobs: settled, not rethrown
            }
            metrics.handlerTook(System.nanoTime() - started);
            if (!claimed.compareAndSet(false, true)) {
                return; // the hard timeout settled it
            }
            cancel(timer);
            metrics.acked();
            settle(delivery::ack, "ack");
        }

        private void cancel(ScheduledFuture<?> timer) {
            if (timer != null) {
                timer.cancel(false);
            }
        }

        private void timedOut() {
            if (!claimed.compareAndSet(false, true)) {
                return;
            }
            Thread t = thread;
            if (t != null) {
                t.interrupt();
            }
            String reason = "hard timeout: handler ran longer than " + hardTimeout.toMillis() + " ms";
            try {
                timeoutSettlement.execute(() -> fail(reason));
            } catch (RejectedExecutionException stopping) {
                abandonAndRelease();
            }
        }

        private void fail(String error) {
            RetryPolicy.Decision decision = policy.afterFailure(delivery.deliveryCount(), JobMeta.NONE,
                    TaskOptions.defaults());
            if (decision instanceof RetryPolicy.Retry retry) {
                log.debug("{} '{}' message {} failed (delivery {}): {}; retry in {} ms", kind, delivery.topic(),
                        delivery.messageId(), delivery.deliveryCount(), error, retry.delay().toMillis());
                metrics.retried();
                settle(() -> delivery.retry(retry.delay(), error), "retry");
            } else {
                drop("failed " + delivery.deliveryCount() + " times (max " + policy.maxDeliveries() + " retries): "
                        + error);
            }
        }

        private void dropNow(String reason) {
            if (claimed.compareAndSet(false, true)) {
                drop(reason);
            }
        }

        private void drop(String reason) {
            Optional<String> kept = delivery.deadLetterDestination();
            if (kept.isPresent()) {
                log.warn("{} '{}' message {} dead-lettered to {}: {}", kind, delivery.topic(), delivery.messageId(),
                        kept.get(), reason);
            } else {
                log.warn("{} '{}' message {} dropped (there is no dead-letter destination): {}", kind, delivery.topic(),
                        delivery.messageId(), reason);
            }
            metrics.deadLettered();
            settle(() -> delivery.drop(reason), "drop");
        }

        private void settle(Supplier<CompletionStage<Void>> action, String what) {
            CompletionStage<Void> stage;
            try {
                stage = action.get();
            } catch (RuntimeException e) {
                log.warn("{} of {} message {} failed; it stays with the broker: {}", what, kind, delivery.messageId(),
                        DeliveryProcessor.describe(e));
                abandonAndRelease();
                return;
            }
            stage.whenComplete((ok, error) -> {
                if (error != null) {
                    log.warn("{} of {} message {} failed; it stays with the broker: {}", what, kind,
                            delivery.messageId(), error.toString());
                    abandonAndRelease();
                } else {
                    release();
                }
            });
        }

        void abandon() {
            if (claimed.compareAndSet(false, true)) {
                abandonAndRelease();
            }
        }

        private void abandonAndRelease() {
            try {
                delivery.abandon();
            } catch (RuntimeException e) {
                log.warn("abandoning {} message {} failed: {}", kind, delivery.messageId(), e.toString());
            } finally {
                release();
            }
        }

        private void release() {
            if (released.compareAndSet(false, true)) {
                gate.release();
            }
        }

        private TopicContext context() {
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
}
