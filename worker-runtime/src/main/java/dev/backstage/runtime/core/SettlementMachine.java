package dev.backstage.runtime.core;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.Supplier;

/**
 * One delivery's settlement, the same for jobs and topic messages: it ends in exactly one of ack, retry, giving up
 * (dead-letter a job, drop a topic message) or abandon, and frees the delivery's slot exactly once. What each of
 * those means is the {@link OutcomePolicy}'s; when it happens is decided here:
 * <ul>
 *   <li><b>claim</b> — whoever claims first settles: the handler's thread when the handler returns or throws, the
 *       watchdog at the hard timeout, shutdown past its grace, a hand-off the handler pool rejected;
 *   <li><b>timeout</b> — armed when the handler starts; at expiry the watchdog claims, cancels and interrupts the
 *       handler, and hands the settlement (a retry publish that may block on a slow backend) to another thread;
 *   <li><b>settle</b> — a settlement's stage frees the slot when it completes; a settlement that fails, at once or
 *       later, abandons the delivery so the broker delivers it again (an ack may free the slot once it is queued);
 *   <li><b>abandon</b> — leaves the delivery with the broker and frees the slot, whatever abandon does;
 *   <li><b>finish</b> — frees the slot, once.
 * </ul>
 *
 * @param <S> one delivery as its policy sees it
 */
final class SettlementMachine<S> {
    /** Claims the settlement; field updaters rather than an AtomicBoolean per delivery (hot path). */
    @SuppressWarnings("rawtypes")
    private static final AtomicIntegerFieldUpdater<SettlementMachine> SETTLED =
            AtomicIntegerFieldUpdater.newUpdater(SettlementMachine.class, "settled");
    /** Frees the slot exactly once. */
    @SuppressWarnings("rawtypes")
    private static final AtomicIntegerFieldUpdater<SettlementMachine> FINISHED =
            AtomicIntegerFieldUpdater.newUpdater(SettlementMachine.class, "finished");

    private final S subject;
    private final OutcomePolicy<S> policy;
    private final SettlementServices services;
    private final Runnable onFinish;
    private volatile int settled;
    private volatile int finished;
    private volatile Thread thread;
    private volatile ScheduledFuture<?> timeoutTimer;
    /** Set once a settlement call returned its stage: from then on that stage frees the slot. */
    private volatile boolean settling;

    /** @param onFinish frees the delivery's slot; run exactly once */
    SettlementMachine(S subject, OutcomePolicy<S> policy, SettlementServices services, Runnable onFinish) {
        this.subject = subject;
        this.policy = policy;
        this.services = services;
        this.onFinish = onFinish;
    }

    /** On a handler thread: prepares the delivery, runs its handler and settles it. */
    void execute() {
        thread = Thread.currentThread();
        policy.enter(subject);
        try {
            if (settled == 0) {
                run();
            }
        } catch (Throwable unexpected) {
            // Only reachable if settlement itself throws; the broker keeps the delivery.
            policy.log()
                    .error(
                            "settling {} failed; it stays with the broker for redelivery",
                            policy.label(subject),
                            unexpected);
            if (claim() || !settling) {
                abandonAndFinish();
            }
            if (unexpected instanceof Error error) {
                throw error;
            }
        } finally {
            policy.exit(subject);
            thread = null;
            Thread.interrupted(); // never leak an interrupt into the next run on this pool thread
        }
    }

    private void run() {
        Verdict verdict = policy.prepare(subject);
        if (verdict instanceof Verdict.Reject reject) {
            if (claim()) {
                settleWith(() -> policy.reject(subject, reject.reason()), policy.giveUpName());
            }
            return;
        }
        if (!(verdict instanceof Verdict.Run ready)) {
            if (claim()) {
                abandonAndFinish(); // Verdict.LEAVE
            }
            return;
        }
        long started = System.nanoTime();
        armTimeout(policy.timeout(subject));
        try {
            policy.invoke(subject, ready.payload());
        } catch (Throwable failure) {
            services.metrics().handlerTook(System.nanoTime() - started);
            if (claim()) {
                disarmTimeout();
                fail(describe(failure));
            }
            return; // a handler's Error is its failure: settled, not rethrown
        }
        services.metrics().handlerTook(System.nanoTime() - started);
        if (!claim()) {
            return; // the hard timeout settled it already
        }
        disarmTimeout();
        String failedAfterAll = policy.beforeAck(subject);
        if (failedAfterAll != null) {
            fail(failedAfterAll);
            return;
        }
        ack();
    }

    private void armTimeout(Duration limit) {
        if (limit != null) {
            timeoutTimer = services.watchdog().schedule(() -> timedOut(limit), limit.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void disarmTimeout() {
        ScheduledFuture<?> timer = timeoutTimer;
        if (timer != null) {
            timer.cancel(false);
        }
    }

    /** On the watchdog thread: claim, cancel and interrupt only; the settlement runs on another thread. */
    private void timedOut(Duration limit) {
        if (!claim()) {
            return;
        }
        cancelAndInterrupt();
        String reason = "hard timeout: handler ran longer than " + limit.toMillis() + " ms";
        try {
            services.timeoutSettlement().execute(() -> fail(reason));
        } catch (RejectedExecutionException stopping) {
            abandonAndFinish();
        }
    }

    private void cancelAndInterrupt() {
        policy.cancel(subject);
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }

    private boolean claim() {
        return SETTLED.compareAndSet(this, 0, 1);
    }

    private void fail(String error) {
        RetryPolicy.Decision decision = policy.afterFailure(subject);
        if (decision instanceof RetryPolicy.Retry retry) {
            settleWith(() -> policy.retry(subject, retry.delay(), error), "retry");
        } else {
            settleWith(() -> policy.giveUp(subject, error), policy.giveUpName());
        }
    }

    private void ack() {
        if (!policy.ackFreesSlotAtOnce()) {
            settleWith(() -> policy.ack(subject), "ack");
            return;
        }
        CompletionStage<Void> stage;
        try {
            stage = policy.ack(subject);
        } catch (RuntimeException e) {
            policy.log()
                    .warn(
                            "ack of {} failed; it stays with the broker for redelivery: {}",
                            policy.label(subject),
                            describe(e));
            abandonAndFinish();
            return;
        }
        settling = true;
        finish(); // the slot frees as soon as the ack is queued; acks flush in batches
        stage.whenComplete((ok, error) -> {
            if (error != null) {
                policy.log().warn("ack of {} failed; the broker will redeliver it", policy.label(subject), error);
            }
        });
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
            policy.log()
                    .warn(
                            "{} of {} failed; it stays with the broker for redelivery: {}",
                            what,
                            policy.label(subject),
                            describe(e));
            abandonAndFinish();
            return;
        }
        settling = true;
        stage.whenComplete((ok, error) -> {
            if (error != null) {
                policy.log()
                        .warn(
                                "{} of {} failed; it stays with the broker for redelivery: {}",
                                what,
                                policy.label(subject),
                                error.toString());
                abandonAndFinish();
            } else {
                finish();
            }
        });
    }

    /** Leaves the delivery with the broker and frees the slot, whatever abandon does. */
    private void abandonAndFinish() {
        try {
            policy.abandon(subject);
        } catch (RuntimeException e) {
            policy.log().warn("abandoning {} failed: {}", policy.label(subject), describe(e));
        } finally {
            finish();
        }
    }

    /** Shutdown past its grace: an unsettled delivery is cancelled, interrupted and left for redelivery. */
    void cancelAndAbandon() {
        if (finished != 0 || !claim()) {
            return;
        }
        disarmTimeout();
        cancelAndInterrupt();
        policy.log().warn("shutdown grace elapsed: {} left for redelivery", policy.label(subject));
        abandonAndFinish();
    }

    /** The hand-off to the handler pool failed (shutting down): the delivery stays with the broker. */
    void abandon() {
        if (claim()) {
            abandonAndFinish();
        }
    }

    private void finish() {
        if (FINISHED.compareAndSet(this, 0, 1)) {
            onFinish.run();
        }
    }

    /** A failure as a log line and dead-letter reason: its class and its message. */
    static String describe(Throwable failure) {
        String message = failure.getMessage();
        String name = failure.getClass().getSimpleName();
        return message == null || message.isBlank() ? name : name + ": " + message;
    }
}
