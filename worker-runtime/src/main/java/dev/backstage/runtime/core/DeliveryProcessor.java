package dev.backstage.runtime.core;

import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.TaskOptions;
import dev.backstage.runtime.api.UnknownTaskPolicy;
import dev.backstage.runtime.spi.Delivery;
import dev.backstage.runtime.spi.DeliverySink;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Settlement, in one place: every delivery from every provider comes through here and ends in
 * exactly one of ack, retry, dead-letter or (on shutdown, or for a task owned elsewhere) abandon.
 *
 * <ul>
 *   <li>success → the next task, if any, is enqueued first; then ack. A failed hand-off is a failure.
 *   <li>failure or hard timeout → {@link RetryPolicy} → retry after back-off, or dead-letter with the error.
 *   <li>malformed record, unparseable payload, unknown task → dead-letter with the reason (never lost).
 * </ul>
 */
public final class DeliveryProcessor implements DeliverySink {
    private static final Logger log = LoggerFactory.getLogger(DeliveryProcessor.class);
    /** MDC keys set while a job runs (its handler and the runtime's lines about it). */
    public static final String MDC_TASK = "task";
    public static final String MDC_JOB_ID = "jobId";
    public static final String MDC_QUEUE = "queue";

    private final TaskRegistry registry;
    private final RetryPolicy policy;
    private final PayloadCodec codec;
    private final JobProducer producer;
    private final InFlightGate gate;
    private final ExecutorService handlers;
    private final ScheduledExecutorService watchdog;
    private final Executor timeoutSettlement;
    private final WorkerMetrics metrics;
    private final UnknownTaskPolicy unknownTaskPolicy;
    private final Duration defaultHardTimeout;
    /** Binds a payload in the provider's one pass over its record, to the type registered for its task. */
    private final PayloadTokens.Binder inlineBinder = this::bindInline;
    /** Batches with runs not yet finished (one entry per batch, not per delivery), for {@link #abandonAll()}. */
    private final Set<RunBatch> batches = ConcurrentHashMap.newKeySet();

    public DeliveryProcessor(
            TaskRegistry registry, RetryPolicy policy, PayloadCodec codec, JobProducer producer, InFlightGate gate,
            ExecutorService handlers, ScheduledExecutorService watchdog, Executor timeoutSettlement,
            WorkerMetrics metrics, UnknownTaskPolicy unknownTaskPolicy, Duration defaultHardTimeout) {
        this.registry = registry;
        this.policy = policy;
        this.codec = codec;
        this.producer = producer;
        this.gate = gate;
        this.handlers = handlers;
        this.watchdog = watchdog;
        this.timeoutSettlement = timeoutSettlement;
        this.metrics = metrics;
        this.unknownTaskPolicy = unknownTaskPolicy;
        this.defaultHardTimeout = defaultHardTimeout;
    }

    private Object bindInline(String taskName, com.fasterxml.jackson.core.JsonParser parser) throws java.io.IOException {
        RegisteredTask<?> task = registry.find(taskName).orElse(null);
        if (task == null || com.fasterxml.jackson.databind.JsonNode.class.isAssignableFrom(task.payloadType())) {
            return PayloadTokens.NOT_BOUND; // unknown task: never decoded; trees: decoded from the text as before
        }
        return codec.decodeInline(parser, task.payloadType());
    }

    @Override
    public void accept(Delivery delivery) {
        acceptAll(List.of(delivery));
    }

    /**
     * Hands a fetch's deliveries to the handler threads as one task: on the fork/join handler pool it splits
     * itself in halves down to single deliveries (cheap pushes onto the handler thread's own queue), so idle
     * handler threads steal them and a slow or blocked job holds back no other, while the fetching thread pays
     * one external submission per batch instead of one per delivery.
     */
    @Override
    public void acceptAll(List<? extends Delivery> deliveries) {
        int n = deliveries.size();
        if (n == 0) {
            return;
        }
        Run[] runs = new Run[n];
        RunBatch batch = new RunBatch(runs);
        gate.occupy(n);
        for (int i = 0; i < n; i++) {
            runs[i] = new Run(deliveries.get(i), batch);
        }
        metrics.delivered(n);
        batches.add(batch);
        try {
            if (handlers instanceof ForkJoinPool pool) {
                pool.execute(new RunSlice(runs, 0, n));
            } else {
                for (Run run : runs) {
                    handlers.execute(run::execute);
                }
            }
        } catch (RejectedExecutionException e) {
            // Shutting down: leave them with the broker for redelivery.
            for (Run run : runs) {
                run.abandon();
            }
        } catch (Throwable e) {
            for (Run run : runs) {
                run.abandon();
            }
            throw e;
        }
    }

    /** Abandons every run still unsettled (shutdown past its grace): they stay with the broker. */
    void abandonAll() {
        for (RunBatch batch : Set.copyOf(batches)) {
            for (Run run : batch.runs) {
                run.cancelAndAbandon();
            }
        }
    }

    int running() {
        int n = 0;
        for (RunBatch batch : batches) {
            n += batch.unfinished.get();
        }
        return n;
    }

    /** The runs of one hand-off; leaves {@link #batches} when its last run finishes. */
    private static final class RunBatch {
        final Run[] runs;
        final AtomicInteger unfinished;

        RunBatch(Run[] runs) {
            this.runs = runs;
            this.unfinished = new AtomicInteger(runs.length);
        }
    }

    /** Runs {@code runs[from, to)}, forking the upper halves for other handler threads to steal. */
    private static final class RunSlice extends RecursiveAction {
        private final Run[] runs;
        private final int from;
        private int to;

        RunSlice(Run[] runs, int from, int to) {
            this.runs = runs;
            this.from = from;
            this.to = to;
        }

        @Override
        protected void compute() {
            while (to - from > 1) {
                int mid = (from + to) >>> 1;
                new RunSlice(runs, mid, to).fork();
                to = mid;
            }
            runs[from].execute();
        }
    }

    /** Claims a run's settlement; a field updater rather than an AtomicBoolean per delivery (hot path). */
    private static final AtomicIntegerFieldUpdater<Run> SETTLED = AtomicIntegerFieldUpdater.newUpdater(Run.class, "settled");
    /** Frees a run's slot exactly once. */
    private static final AtomicIntegerFieldUpdater<Run> FINISHED = AtomicIntegerFieldUpdater.newUpdater(Run.class, "finished");

    private final class Run {
        private final Delivery delivery;
        private final RunBatch batch;
        private final DeliveryContext context;
        private volatile int settled;
        private volatile int finished;
        private volatile Thread thread;
        private volatile ScheduledFuture<?> timeoutTimer;
        /** Set once a settlement call returned its stage: from then on that stage frees the slot. */
        private volatile boolean settling;
        private TaskOptions options = TaskOptions.defaults();
        /** The payload as the provider bound it in its one pass over the record, or {@link PayloadTokens#NOT_BOUND}. */
        private Object bound = PayloadTokens.NOT_BOUND;

        Run(Delivery delivery, RunBatch batch) {
            this.delivery = delivery;
            this.batch = batch;
            this.context = new DeliveryContext(delivery);
        }

        void execute() {
            thread = Thread.currentThread();
            if (delivery instanceof PayloadTokens oneReader) {
                bound = oneReader.readBinding(inlineBinder); // reads the record once, before anything asks for a field
            }
            // What every log line of this run carries (the runtime's, the handler's own): with JSON logs, fields
            // of the "mdc" object; cleared below, since the pool thread runs other jobs next.
            MDC.put(MDC_TASK, delivery.taskName());
            MDC.put(MDC_JOB_ID, delivery.jobId());
            MDC.put(MDC_QUEUE, delivery.queue());
            try {
                if (settled == 0) {
                    process();
                }
            } catch (Throwable unexpected) {
                // Only reachable if settlement itself throws; the broker keeps the delivery.
                log.error("settling {} {} failed; it stays with the broker for redelivery",
                        delivery.taskName(), delivery.deliveryId(), unexpected);
                if (claim() || !settling) {
                    abandonAndFinish();
                }
                if (unexpected instanceof Error error) {
                    throw error;
                }
            } finally {
                MDC.remove(MDC_TASK);
                MDC.remove(MDC_JOB_ID);
                MDC.remove(MDC_QUEUE);
                thread = null;
                Thread.interrupted(); // never leak an interrupt into the next run on this pool thread
            }
        }

        private void process() {
            if (delivery.malformedReason().isPresent()) {
                deadLetterNow(delivery.malformedReason().get());
                return;
            }
            var task = registry.find(delivery.taskName());
            if (task.isEmpty()) {
                unknownTask();
                return;
            }
            options = task.get().options();
            if (policy.exhaustedBeforeRun(delivery.deliveryCount(), delivery.meta(), options)) {
                deadLetterNow("delivered " + delivery.deliveryCount() + " times without settling (max "
                        + policy.maxFor(delivery.meta(), options) + " retries); not run again");
                return;
            }
            Object payload = bound;
            try {
                if (payload == PayloadTokens.NOT_BOUND) {
                    Class<?> type = task.get().payloadType();
                    var tokens = delivery instanceof PayloadTokens parsed ? parsed.payloadTokens() : null;
                    ByteBuffer bytes = tokens == null ? delivery.payloadBytes() : null;
                    payload = tokens != null ? codec.decode(tokens, type, delivery::payloadJson)
                            : bytes != null ? codec.decode(bytes, type) : codec.decode(delivery.payloadJson(), type);
                }
            } catch (PayloadCodec.MalformedPayloadException e) {
                deadLetterNow(e.getMessage());
                return;
            }
            Next next;
            long started = System.nanoTime();
            armTimeout();
            try {
                next = invoke(task.get(), payload);
            } catch (Throwable failure) {
                metrics.handlerTook(System.nanoTime() - started);
                if (claim()) {
                    disarmTimeout();
                    fail(describe(failure));
                }
                return;
            }
            metrics.handlerTook(System.nanoTime() - started);
            if (!claim()) {
                return; // the hard timeout settled it already
            }
            disarmTimeout();
            if (next != null && !next.isDone()) {
                try {
                    EnqueueOptions opts = EnqueueOptions.onQueue(next.queue()).delay(next.delay());
                    producer.enqueue(next.taskName(), next.payload(), opts);
                    metrics.chained();
                } catch (RuntimeException handOff) {
                    fail("could not enqueue next task '" + next.taskName() + "': " + describe(handOff));
                    return;
                }
            }
            ack();
        }

        @SuppressWarnings("unchecked")
        private <T> Next invoke(RegisteredTask<T> task, Object payload) throws Exception {
            return task.handler().handle(context, (T) payload);
        }

        private void armTimeout() {
            Duration limit = effectiveTimeout();
            if (limit != null) {
                timeoutTimer = watchdog.schedule(this::timedOut, limit.toMillis(), TimeUnit.MILLISECONDS);
            }
        }

        private Duration effectiveTimeout() {
            Duration task = options.hardTimeout() != null ? options.hardTimeout() : defaultHardTimeout;
            Long job = delivery.meta().timeoutMs();
            if (job == null) {
                return task;
            }
            Duration jobLimit = Duration.ofMillis(job);
            return task == null || jobLimit.compareTo(task) < 0 ? jobLimit : task;
        }

        private void disarmTimeout() {
            ScheduledFuture<?> timer = timeoutTimer;
            if (timer != null) {
                timer.cancel(false);
            }
        }

        /**
         * On the watchdog thread: claim, cancel and interrupt only. The settlement (a retry publish or a delays
         * write that may block on a slow backend) runs on another thread, so one slow backend never delays the
         * other timeouts.
         */
        private void timedOut() {
            if (!claim()) {
                return;
            }
            context.cancel();
            Thread t = thread;
            if (t != null) {
                t.interrupt();
            }
            String reason = "hard timeout: handler ran longer than " + effectiveTimeout().toMillis() + " ms";
            try {
                timeoutSettlement.execute(() -> fail(reason));
            } catch (RejectedExecutionException stopping) {
                abandonAndFinish();
            }
        }

        private void unknownTask() {
            String name = delivery.taskName();
            if (unknownTaskPolicy == UnknownTaskPolicy.LEAVE_PENDING) {
                log.warn("no handler for task '{}' ({}): left pending for a worker that owns it", name,
                        delivery.deliveryId());
                if (claim()) {
                    abandonAndFinish();
                }
                return;
            }
            deadLetterNow("unknown task '" + name + "'");
        }

        private boolean claim() {
            return SETTLED.compareAndSet(this, 0, 1);
        }

        private void ack() {
            CompletionStage<Void> stage;
            try {
                stage = delivery.ack();
            } catch (RuntimeException e) {
                log.warn("ack of {} failed; it stays with the broker for redelivery: {}", delivery.deliveryId(),
                        describe(e));
                abandonAndFinish();
                return;
            }
            settling = true;
            metrics.acked();
            finish(); // the slot frees as soon as the ack is queued; acks flush in batches
            stage.whenComplete((ok, error) -> {
                if (error != null) {
                    log.warn("ack of {} failed; the broker will redeliver it", delivery.deliveryId(), error);
                }
            });
        }

        private void fail(String error) {
            RetryPolicy.Decision decision = policy.afterFailure(delivery.deliveryCount(), delivery.meta(), options);
            if (decision instanceof RetryPolicy.Retry retry) {
                log.debug("task '{}' {} failed (delivery {}): {}; retry in {} ms", delivery.taskName(),
                        delivery.deliveryId(), delivery.deliveryCount(), error, retry.delay().toMillis());
                metrics.retried();
                settleWith(() -> delivery.retry(retry.delay(), error), "retry");
            } else {
                log.warn("task '{}' {} dead-lettered after delivery {}: {}", delivery.taskName(),
                        delivery.deliveryId(), delivery.deliveryCount(), error);
                metrics.deadLettered();
                settleWith(() -> delivery.deadLetter(error), "dead-letter");
            }
        }

        private void deadLetterNow(String reason) {
            if (!claim()) {
                return;
            }
            log.warn("dead-lettering {} (task '{}'): {}", delivery.deliveryId(), delivery.taskName(), reason);
            metrics.deadLettered();
            settleWith(() -> delivery.deadLetter(reason), "dead-letter");
        }

        /**
         * Starts a settlement; its stage frees the slot when it completes. A settlement that fails (at once or
         * later) abandons the delivery, so the provider lets go of it (a RabbitMQ prefetch slot, a Kafka
         * commit position) and the broker delivers it again.
         */
        private void settleWith(Supplier<CompletionStage<Void>> action, String what) {
            CompletionStage<Void> stage;
            try {
                stage = action.get();
            } catch (RuntimeException e) {
                log.warn("{} of {} failed; it stays with the broker for redelivery: {}", what, delivery.deliveryId(),
                        describe(e));
                abandonAndFinish();
                return;
            }
            settling = true;
            stage.whenComplete((ok, error) -> {
                if (error != null) {
                    log.warn("{} of {} failed; it stays with the broker for redelivery: {}", what,
                            delivery.deliveryId(), error.toString());
                    abandonAndFinish();
                } else {
                    finish();
                }
            });
        }

        /** Leaves the delivery with the broker and frees the slot, whatever abandon does. */
        private void abandonAndFinish() {
            try {
                delivery.abandon();
            } catch (RuntimeException e) {
                log.warn("abandoning {} failed: {}", delivery.deliveryId(), describe(e));
            } finally {
                finish();
            }
        }

        void cancelAndAbandon() {
            if (finished != 0 || !claim()) {
                return;
            }
            disarmTimeout();
            context.cancel();
            Thread t = thread;
            if (t != null) {
                t.interrupt();
            }
            log.warn("shutdown grace elapsed: {} (task '{}') left for redelivery", delivery.deliveryId(),
                    delivery.taskName());
            abandonAndFinish();
        }

        void abandon() {
            if (claim()) {
                abandonAndFinish();
            }
        }

        private void finish() {
            if (FINISHED.compareAndSet(this, 0, 1)) {
                gate.release();
                if (batch.unfinished.decrementAndGet() == 0) {
                    batches.remove(batch);
                }
            }
        }
    }

    static String describe(Throwable failure) {
        Throwable root = failure;
        String message = root.getMessage();
        String name = root.getClass().getSimpleName();
        return message == null || message.isBlank() ? name : name + ": " + message;
    }
}
