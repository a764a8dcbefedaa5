package dev.backstage.runtime.core;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.UnknownTaskPolicy;
import dev.backstage.runtime.spi.Delivery;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * What settlement means for a job ({@link OutcomePolicy}):
 * <ul>
 *   <li>before it runs — a malformed record, an unknown task (or, with {@link UnknownTaskPolicy#LEAVE_PENDING}, left
 *       for a worker that owns it), a delivery past its allowance or an unreadable payload is dead-lettered with the
 *       reason (never lost);
 *   <li>success → the next task, if any, is enqueued first; then ack, and the slot frees as soon as the ack is
 *       queued (acks flush in batches). A failed hand-off is a failure;
 *   <li>failure or hard timeout (the task's, or the job's own when shorter) → {@link RetryPolicy} with the job's
 *       and the task's overrides → retry after the back-off, or dead-letter with the error.
 * </ul>
 * Log lines go to {@link DeliveryProcessor}'s logger, with the job's task, id and queue in the MDC.
 */
final class JobOutcomes implements OutcomePolicy<JobRun> {
    private static final Logger log = LoggerFactory.getLogger(DeliveryProcessor.class);

    private final TaskRegistry registry;
    private final RetryPolicy policy;
    private final PayloadCodec codec;
    private final JobProducer producer;
    private final WorkerMetrics metrics;
    private final UnknownTaskPolicy unknownTaskPolicy;
    private final Duration defaultHardTimeout;
    /** Binds a payload in the provider's one pass over its record, to the type registered for its task. */
    private final JsonTokens.Binder inlineBinder = this::bindInline;

    JobOutcomes(
            TaskRegistry registry,
            RetryPolicy policy,
            PayloadCodec codec,
            JobProducer producer,
            WorkerMetrics metrics,
            UnknownTaskPolicy unknownTaskPolicy,
            Duration defaultHardTimeout) {
        this.registry = registry;
        this.policy = policy;
        this.codec = codec;
        this.producer = producer;
        this.metrics = metrics;
        this.unknownTaskPolicy = unknownTaskPolicy;
        this.defaultHardTimeout = defaultHardTimeout;
    }

    private Object bindInline(String taskName, JsonParser parser) throws IOException {
        RegisteredTask<?> task = registry.find(taskName).orElse(null);
        if (task == null || JsonNode.class.isAssignableFrom(task.payloadType())) {
            return JsonTokens.NOT_BOUND; // unknown task: never decoded; trees: decoded from the text as before
        }
        return codec.decodeInline(parser, task.payloadType());
    }

    @Override
    public Logger log() {
        return log;
    }

    @Override
    public String label(JobRun run) {
        return run.delivery.deliveryId() + " (task '" + run.delivery.taskName() + "')";
    }

    /**
     * Reads the record once, before anything asks for a field (binding the payload in that pass where the provider
     * can), then puts what every log line of this run carries (the runtime's, the handler's own) in the MDC: with
     * JSON logs, fields of the "mdc" object.
     */
    @Override
    public void enter(JobRun run) {
        Delivery delivery = run.delivery;
        run.payload = delivery.payload();
        run.bound = codec.readBinding(run.payload, inlineBinder);
        MDC.put(DeliveryProcessor.MDC_TASK, delivery.taskName());
        MDC.put(DeliveryProcessor.MDC_JOB_ID, delivery.jobId());
        MDC.put(DeliveryProcessor.MDC_QUEUE, delivery.queue());
    }

    /** Clears the MDC: the pool thread runs other jobs next. */
    @Override
    public void exit(JobRun run) {
        MDC.remove(DeliveryProcessor.MDC_TASK);
        MDC.remove(DeliveryProcessor.MDC_JOB_ID);
        MDC.remove(DeliveryProcessor.MDC_QUEUE);
    }

    @Override
    public Verdict prepare(JobRun run) {
        Delivery delivery = run.delivery;
        if (delivery.malformedReason().isPresent()) {
            return new Verdict.Reject(delivery.malformedReason().get());
        }
        RegisteredTask<?> task = registry.find(delivery.taskName()).orElse(null);
        if (task == null) {
            if (unknownTaskPolicy == UnknownTaskPolicy.LEAVE_PENDING) {
                log.warn(
                        "no handler for task '{}' ({}): left pending for a worker that owns it",
                        delivery.taskName(),
                        delivery.deliveryId());
                return Verdict.LEAVE;
            }
            return new Verdict.Reject("unknown task '" + delivery.taskName() + "'");
        }
        run.task = task;
        run.options = task.options();
        if (policy.exhaustedBeforeRun(delivery.deliveryCount(), delivery.meta(), run.options)) {
            return new Verdict.Reject("delivered " + delivery.deliveryCount() + " times without settling (max "
                    + policy.maxFor(delivery.meta(), run.options) + " retries); not run again");
        }
        if (run.bound != JsonTokens.NOT_BOUND) {
            return new Verdict.Run(run.bound);
        }
        try {
            return new Verdict.Run(codec.decode(run.payload, task.payloadType()));
        } catch (PayloadCodec.MalformedPayloadException e) {
            return new Verdict.Reject(e.getMessage());
        }
    }

    /** The task's hard timeout (or the worker's default), or the job's own when that is shorter. */
    @Override
    public Duration timeout(JobRun run) {
        Duration task = run.options.hardTimeout() != null ? run.options.hardTimeout() : defaultHardTimeout;
        Long job = run.delivery.meta().timeoutMs();
        if (job == null) {
            return task;
        }
        Duration jobLimit = Duration.ofMillis(job);
        return task == null || jobLimit.compareTo(task) < 0 ? jobLimit : task;
    }

    @Override
    public void invoke(JobRun run, Object payload) throws Exception {
        run.next = handle(run.task, run, payload);
    }

    @SuppressWarnings("unchecked")
    private static <T> Next handle(RegisteredTask<T> task, JobRun run, Object payload) throws Exception {
        return task.handler().handle(run.context, (T) payload);
    }

    /** Enqueues the next task, if the handler returned one, before the ack. */
    @Override
    public String beforeAck(JobRun run) {
        Next next = run.next;
        if (next == null || next.isDone()) {
            return null;
        }
        try {
            producer.enqueue(
                    next.taskName(),
                    next.payload(),
                    EnqueueOptions.onQueue(next.queue()).delay(next.delay()));
            metrics.chained();
            return null;
        } catch (RuntimeException handOff) {
            return "could not enqueue next task '" + next.taskName() + "': " + SettlementMachine.describe(handOff);
        }
    }

    @Override
    public CompletionStage<Void> ack(JobRun run) {
        CompletionStage<Void> stage = run.delivery.ack();
        metrics.acked();
        return stage;
    }

    @Override
    public boolean ackFreesSlotAtOnce() {
        return true;
    }

    @Override
    public RetryPolicy.Decision afterFailure(JobRun run) {
        return policy.afterFailure(run.delivery.deliveryCount(), run.delivery.meta(), run.options);
    }

    @Override
    public CompletionStage<Void> retry(JobRun run, Duration delay, String error) {
        Delivery delivery = run.delivery;
        log.debug(
                "task '{}' {} failed (delivery {}): {}; retry in {} ms",
                delivery.taskName(),
                delivery.deliveryId(),
                delivery.deliveryCount(),
                error,
                delay.toMillis());
        metrics.retried();
        return delivery.retry(delay, error);
    }

    @Override
    public CompletionStage<Void> giveUp(JobRun run, String error) {
        Delivery delivery = run.delivery;
        log.warn(
                "task '{}' {} dead-lettered after delivery {}: {}",
                delivery.taskName(),
                delivery.deliveryId(),
                delivery.deliveryCount(),
                error);
        metrics.deadLettered();
        return delivery.deadLetter(error);
    }

    @Override
    public CompletionStage<Void> reject(JobRun run, String reason) {
        log.warn("dead-lettering {}: {}", label(run), reason);
        metrics.deadLettered();
        return run.delivery.deadLetter(reason);
    }

    @Override
    public String giveUpName() {
        return "dead-letter";
    }

    @Override
    public void abandon(JobRun run) {
        run.delivery.abandon();
    }

    @Override
    public void cancel(JobRun run) {
        run.context.cancel();
    }
}
