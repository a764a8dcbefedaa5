package dev.backstage.runtime.core;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;

/**
 * What settlement means for one kind of delivery, for the {@link SettlementMachine} that decides when: what a
 * delivery becomes before its handler runs, how the handler is run, and what ack, retry, giving up (dead-letter for a
 * job, drop for a topic message) and abandon do, with the log line and the metric each carries. Implemented by
 * {@link JobOutcomes} (jobs) and {@link TopicOutcomes} (topic messages and broadcasts).
 *
 * @param <S> one delivery as this policy sees it (the delivery itself, or a holder of per-run state)
 */
interface OutcomePolicy<S> {
    /** The logger every line about this kind of delivery goes to (the settlement machine's lines included). */
    Logger log();

    /** How log lines name a delivery, e.g. {@code 1712-0 (task 'sendReceipt')}. */
    String label(S subject);

    /** First thing on the handler thread, before anything else reads the delivery (jobs: the one read; the MDC). */
    default void enter(S subject) {}

    /** Last thing on the handler thread (jobs: clears the MDC). */
    default void exit(S subject) {}

    /** What the delivery becomes before its handler runs; decoding its payload is part of it. */
    Verdict prepare(S subject);

    /** The hard timeout for this delivery's handler, or null for none. */
    Duration timeout(S subject);

    /** Runs the handler on the decoded payload; a throw (an {@code Error} included) is the handler's failure. */
    void invoke(S subject, Object payload) throws Exception;

    /** After the handler succeeded, before the ack (jobs: enqueue the next task): null, or why it failed after all. */
    default String beforeAck(S subject) {
        return null;
    }

    /** Asks the provider to ack; counts it. */
    CompletionStage<Void> ack(S subject);

    /**
     * True when the slot frees as soon as the ack is handed over and a failed ack stage is only logged (the broker
     * redelivers); false when the ack's stage frees it, and a failed one abandons the delivery like any settlement.
     */
    boolean ackFreesSlotAtOnce();

    /** Retry after a back-off, or give up: the retry rule ({@link RetryPolicy}) for this delivery. */
    RetryPolicy.Decision afterFailure(S subject);

    /** Logs, counts and asks the provider for another delivery after {@code delay}. */
    CompletionStage<Void> retry(S subject, Duration delay, String error);

    /** The handler failed once too often: logs, counts and dead-letters (drops) it with {@code error}. */
    CompletionStage<Void> giveUp(S subject, String error);

    /** Settles a delivery rejected before it ran ({@link Verdict.Reject}): logs, counts, dead-letters (drops). */
    CompletionStage<Void> reject(S subject, String reason);

    /** The name of giving up, in log lines: "dead-letter" or "drop". */
    String giveUpName();

    /** Leaves the delivery with the broker untouched. */
    void abandon(S subject);

    /** Tells the running handler it is cancelled (a hard timeout, shutdown past its grace), besides the interrupt. */
    default void cancel(S subject) {}
}
