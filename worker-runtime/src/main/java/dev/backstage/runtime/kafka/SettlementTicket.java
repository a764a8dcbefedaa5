package dev.backstage.runtime.kafka;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The handle a delivery uses to report the fate of its record to the poll loop. Any thread may call
 * it; the loop applies it on its own thread (a KafkaConsumer is single-threaded). Exactly one call
 * counts; later ones are ignored. The call's outcome is written into the ticket, which then goes to the loop as
 * the {@link Settlement} itself (the queue hand-off publishes the fields).
 */
final class SettlementTicket implements Settlement {
    private final KafkaPollLoop loop;
    private final PartitionState state;
    private final ConsumerRecord<byte[], byte[]> record;
    // A field updater rather than an AtomicBoolean: one object fewer per record on the hot path.
    private static final AtomicIntegerFieldUpdater<SettlementTicket> USED =
            AtomicIntegerFieldUpdater.newUpdater(SettlementTicket.class, "used");
    private volatile int used;
    private final int redeliveries;
    // The outcome, written by the one call that used the ticket, before it is submitted.
    private Kind kind;
    private CompletableFuture<Void> untilCommitted;

    SettlementTicket(
            KafkaPollLoop loop, PartitionState state, ConsumerRecord<byte[], byte[]> record, int redeliveries) {
        this.loop = loop;
        this.state = state;
        this.record = record;
        this.redeliveries = redeliveries;
    }

    /** How often this worker handed the record out again before (after a settlement failed on our side). */
    int redeliveries() {
        return redeliveries;
    }

    /** True for the first call only. */
    private boolean use() {
        return USED.compareAndSet(this, 0, 1);
    }

    /**
     * The record is done: the commit may pass it once every earlier record is done too.
     *
     * @param untilCommitted complete the returned stage only when a commit covers the record (for an
     *                       ack); otherwise as soon as the loop has it (retry and dead-letter copies are
     *                       already durable, and their slot should not wait for slower neighbours)
     */
    CompletionStage<Void> settle(boolean untilCommitted) {
        if (!use()) {
            return DONE;
        }
        kind = Kind.SETTLED;
        if (!untilCommitted) {
            loop.submit(this);
            return DONE;
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        this.untilCommitted = done;
        loop.submit(this);
        return done;
    }

    /** Shared by every settlement that completes at once: no allocation per record. */
    private static final CompletionStage<Void> DONE = CompletableFuture.completedStage(null);

    /** Leave the record unsettled: it is redelivered after a restart or a rebalance, never lost. */
    void abandon() {
        if (use()) {
            kind = Kind.ABANDONED;
            loop.submit(this);
        }
    }

    /**
     * Settling failed on our side (the retry copy or dead-letter record could not be stored): hand the
     * same record out again after a pause, as a broker would redeliver it.
     */
    void redeliverLater() {
        if (use()) {
            kind = Kind.REDELIVER;
            loop.submit(this);
        }
    }

    @Override
    public Kind kind() {
        return kind;
    }

    @Override
    public PartitionState state() {
        return state;
    }

    @Override
    public ConsumerRecord<byte[], byte[]> record() {
        return record;
    }

    @Override
    public CompletableFuture<Void> untilCommitted() {
        return untilCommitted;
    }

    @Override
    public Duration after() {
        return KafkaPollLoop.REDELIVERY_PAUSE;
    }

    @Override
    public int nextRedeliveries() {
        return redeliveries + 1;
    }
}
