package dev.backstage.runtime.core;

import dev.backstage.runtime.api.UnknownTaskPolicy;
import dev.backstage.runtime.spi.Delivery;
import dev.backstage.runtime.spi.DeliverySink;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where every job delivery from every provider comes in: it hands each to the handler threads, where a
 * {@link SettlementMachine} settles it by the job rules ({@link JobOutcomes}) in exactly one of ack, retry,
 * dead-letter or (on shutdown, or for a task owned elsewhere) abandon.
 *
 * <ul>
 *   <li>success → the next task, if any, is enqueued first; then ack. A failed hand-off is a failure.
 *   <li>failure or hard timeout → {@link RetryPolicy} → retry after back-off, or dead-letter with the error.
 *   <li>malformed record, unparseable payload, unknown task → dead-letter with the reason (never lost).
 * </ul>
 */
public final class DeliveryProcessor implements DeliverySink {
    /** MDC keys set while a job runs (its handler and the runtime's lines about it). */
    public static final String MDC_TASK = "task";

    public static final String MDC_JOB_ID = "jobId";
    public static final String MDC_QUEUE = "queue";

    private final InFlightGate gate;
    private final ExecutorService handlers;
    private final WorkerMetrics metrics;
    private final JobOutcomes outcomes;
    private final SettlementServices services;
    /** Batches with runs not yet finished (one entry per batch, not per delivery), for {@link #abandonAll()}. */
    private final Set<RunBatch> batches = ConcurrentHashMap.newKeySet();

    public DeliveryProcessor(
            TaskRegistry registry,
            RetryPolicy policy,
            PayloadCodec codec,
            JobProducer producer,
            InFlightGate gate,
            ExecutorService handlers,
            ScheduledExecutorService watchdog,
            Executor timeoutSettlement,
            WorkerMetrics metrics,
            UnknownTaskPolicy unknownTaskPolicy,
            Duration defaultHardTimeout) {
        this.gate = gate;
        this.handlers = handlers;
        this.metrics = metrics;
        this.outcomes =
                new JobOutcomes(registry, policy, codec, producer, metrics, unknownTaskPolicy, defaultHardTimeout);
        this.services = new SettlementServices(watchdog, timeoutSettlement, metrics);
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
        RunBatch batch = new RunBatch(n);
        gate.occupy(n);
        for (int i = 0; i < n; i++) {
            batch.runs[i] = new SettlementMachine<>(new JobRun(deliveries.get(i)), outcomes, services, batch);
        }
        metrics.delivered(n);
        batches.add(batch);
        try {
            if (handlers instanceof ForkJoinPool pool) {
                pool.execute(new RunSlice(batch.runs, 0, n));
            } else {
                for (SettlementMachine<JobRun> run : batch.runs) {
                    handlers.execute(run::execute);
                }
            }
        } catch (RejectedExecutionException e) {
            // Shutting down: leave them with the broker for redelivery.
            for (SettlementMachine<JobRun> run : batch.runs) {
                run.abandon();
            }
        } catch (Throwable e) {
            for (SettlementMachine<JobRun> run : batch.runs) {
                run.abandon();
            }
            throw e;
        }
    }

    /** Abandons every run still unsettled (shutdown past its grace): they stay with the broker. */
    void abandonAll() {
        for (RunBatch batch : Set.copyOf(batches)) {
            for (SettlementMachine<JobRun> run : batch.runs) {
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

    /**
     * The runs of one hand-off; each run's finish frees its slot, and the batch leaves {@link #batches} when its last
     * run finishes.
     */
    private final class RunBatch implements Runnable {
        final SettlementMachine<JobRun>[] runs;
        final AtomicInteger unfinished;

        @SuppressWarnings("unchecked")
        RunBatch(int n) {
            this.runs = new SettlementMachine[n];
            this.unfinished = new AtomicInteger(n);
        }

        @Override
        public void run() {
            gate.release();
            if (unfinished.decrementAndGet() == 0) {
                batches.remove(this);
            }
        }
    }

    /** Runs {@code runs[from, to)}, forking the upper halves for other handler threads to steal. */
    private static final class RunSlice extends RecursiveAction {
        private final SettlementMachine<JobRun>[] runs;
        private final int from;
        private int to;

        RunSlice(SettlementMachine<JobRun>[] runs, int from, int to) {
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
}
