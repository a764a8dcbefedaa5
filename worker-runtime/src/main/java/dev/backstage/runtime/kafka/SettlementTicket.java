package dev.backstage.runtime.kafka;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The handle a delivery uses to report the fate of its record to the poll loop. Any thread may call
 * it; the loop applies it on its own thread (a KafkaConsumer is single-threaded). Exactly one call
 * counts; later ones are ignored.
 */
final class SettlementTicket {
    private final KafkaPollLoop loop;
    private final PartitionState state;
    private final ConsumerRecord<byte[], byte[]> record;
    // A field updater rather than an AtomicBoolean: one object fewer per record on the hot path.
    private static final AtomicIntegerFieldUpdater<SettlementTicket> USED =
            AtomicIntegerFieldUpdater.newUpdater(SettlementTicket.class, "used");
    private volatile int used;
    private final int redeliveries;

    SettlementTicket(KafkaPollLoop loop, PartitionState state, ConsumerRecord<byte[], byte[]> record, int redeliveries) {
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
        if (!untilCommitted) {
            loop.submit(Settlement.settled(state, record, null));
            return DONE;
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        loop.submit(Settlement.settled(state, record, done));
        return done;
    }

    /** Shared by every settlement that completes at once: no allocation per record. */
    private static final CompletionStage<Void> DONE = CompletableFuture.completedStage(null);

    /** Leave the record unsettled: it is redelivered after a restart or a rebalance, never lost. */
    void abandon() {
        if (use()) {
            loop.submit(Settlement.abandoned(state, record));
        }
    }

    /**
     * Settling failed on our side (the retry copy or dead-letter record could not be stored): hand the
     * same record out again after a pause, as a broker would redeliver it.
     */
    void redeliverLater() {
        if (use()) {
            loop.submit(Settlement.redeliver(state, record, KafkaPollLoop.REDELIVERY_PAUSE, redeliveries + 1));
        }
    }
}
