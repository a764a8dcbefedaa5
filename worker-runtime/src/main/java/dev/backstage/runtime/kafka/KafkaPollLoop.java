package dev.backstage.runtime.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One consumer and the thread that owns it. It fetches records, hands them out for parallel handling
 * within the in-flight allowance, and commits per partition only through offsets settled without a gap
 * ({@link ContiguousOffsetTracker}), recording out-of-order settlements in the commit metadata
 * ({@link CommitMetadata}) so the next owner skips them.
 *
 * <p>A KafkaConsumer is single-threaded: every consumer call happens on this loop's thread. Handler
 * threads report through {@link SettlementTicket}s into a queue the loop drains each turn.
 *
 * <p>Flow: when there is no room (or fetching stopped) every partition is paused and the loop only polls
 * with a zero timeout, to keep its group membership and run rebalance callbacks, then waits for room.
 * A partition whose tracker holds {@code maxUncommittedPerPartition} records behind a stuck one is
 * paused on its own.
 *
 * <p>Rebalance: {@link RebalanceListener} (on revoke it waits up to {@code revokeWait} for the partitions'
 * in-flight records, commits what is settled and lets the rest go).
 *
 * <p>Shutdown: {@link #stopFetching()} pauses everything while settlements keep being applied and
 * committed; {@link #close()} makes a final synchronous commit and closes the consumer.
 *
 * <p>This class only polls, hands out and commits. Its parts: {@link AssignedPartitions} (the partitions owned,
 * their bookkeeping, the records waiting to be handed out and the pauses), {@link RebalanceListener},
 * {@link OffsetCommitter} (what to commit and its outcome), and {@link SettlementInbox} ({@link Settlement}s from
 * {@link SettlementTicket}s on their way to the poll thread).
 *
 * <p>What remains is kept as one class because every consumer call must run on the loop's thread: a turn (apply
 * settlements, commit, pause or resume, poll, hand out) is one sequence over one consumer.
 */
final class KafkaPollLoop implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(KafkaPollLoop.class);
    /** How long a poll waits for records when there is room; bounds how late stop and close are seen. */
    static final Duration POLL_TIMEOUT = Duration.ofMillis(100);
    /** How long the loop waits for room or a settlement before polling again. */
    static final Duration IDLE_WAIT = Duration.ofMillis(100);
    /** The longest the loop goes without polling while busy, so rebalance callbacks are never late by much. */
    static final Duration MAX_POLL_GAP = Duration.ofMillis(500);
    /** Pause before a record whose settlement failed on our side is handed out again. */
    static final Duration REDELIVERY_PAUSE = Duration.ofSeconds(1);

    private static final Duration ERROR_BACKOFF = Duration.ofSeconds(1);
    /** Turns failing in a row (one second apart) before the loop gives up and reports itself dead. */
    static final int MAX_FAILED_TURNS = 30;
    /** How long a clean close waits to leave the group, so the partitions move at once. */
    static final Duration LEAVE_TIMEOUT = Duration.ofSeconds(5);

    private final String name;
    private final Consumer<byte[], byte[]> consumer;
    private final List<String> topics;
    private final Room room;
    private final RecordSink sink;
    private final KafkaSettings settings;
    private final Thread thread;
    private final SettlementInbox inbox;
    private final AssignedPartitions partitions;
    private final OffsetCommitter committer;
    private final RebalanceListener rebalance;
    // Poll-thread state.
    private long nextCommitNanos;
    private long lastPollNanos;

    private volatile boolean fetchingStopped;
    private volatile boolean closeRequested;
    private volatile boolean finished;
    private volatile String failure;

    /** A loop that hands every record out at once, from where the consumer's reset policy says (jobs). */
    KafkaPollLoop(
            String name,
            Consumer<byte[], byte[]> consumer,
            List<String> topics,
            Room room,
            int ownLimit,
            RecordSink sink,
            KafkaSettings settings) {
        this(name, consumer, topics, room, ownLimit, sink, settings, RecordSchedule.NOW, Set.of());
    }

    /**
     * @param room         how many records may be handed out (the worker's allowance), or null to allow
     *                     {@code ownLimit} records in flight, counted by this loop (topic subscriptions)
     * @param schedule     when a fetched record is due (a topic retry copy waits for its due time)
     * @param fromEarliest topics whose partitions start at the beginning when the group has no offset there
     */
    KafkaPollLoop(
            String name,
            Consumer<byte[], byte[]> consumer,
            List<String> topics,
            Room room,
            int ownLimit,
            RecordSink sink,
            KafkaSettings settings,
            RecordSchedule schedule,
            Set<String> fromEarliest) {
        this.name = name;
        this.consumer = consumer;
        this.topics = List.copyOf(topics);
        this.room = room != null ? room : new OwnLimit(ownLimit);
        this.sink = sink;
        this.settings = settings;
        this.thread = new Thread(this::run, name);
        this.thread.setDaemon(true);
        this.inbox = new SettlementInbox(thread);
        this.partitions = new AssignedPartitions(name, consumer, settings.maxUncommittedPerPartition(), schedule);
        this.committer = new OffsetCommitter(name, consumer);
        this.rebalance = new RebalanceListener(
                name, consumer, partitions, inbox, committer, settings.revokeWait(), IDLE_WAIT, fromEarliest);
    }

    /** A room of {@code limit} records in flight, counted by this loop itself (poll thread only). */
    private final class OwnLimit implements Room {
        private final int limit;

        OwnLimit(int limit) {
            this.limit = limit;
        }

        @Override
        public int free() {
            return Math.max(0, limit - partitions.inFlight());
        }

        @Override
        public boolean stopping() {
            return false;
        }

        @Override
        public int await(int atLeast, Duration max) throws InterruptedException {
            inbox.awaitAndApply(max, partitions);
            return free();
        }

        @Override
        public int batch() {
            return 1;
        }
    }

    void start() {
        thread.start();
    }

    /** Why the loop stopped for good (reported to the worker's health); empty while it runs or after a close. */
    Optional<String> failure() {
        String f = failure;
        return f == null ? Optional.empty() : Optional.of(f);
    }

    /** Waits until the group gave this consumer its first assignment (positions resolved). */
    boolean awaitFirstAssignment(Duration max) throws InterruptedException {
        return rebalance.awaitFirstAssignment(max);
    }

    /** Stop handing out records; settlements keep being applied and committed until {@link #close()}. */
    void stopFetching() {
        fetchingStopped = true;
    }

    /** Final commit of what is settled, then the consumer closes; unsettled records stay for redelivery. */
    @Override
    public void close() {
        fetchingStopped = true;
        closeRequested = true;
        if (Thread.currentThread() == thread) {
            return;
        }
        try {
            thread.join(settings.revokeWait()
                    .plus(OffsetCommitter.COMMIT_TIMEOUT)
                    .plusSeconds(10)
                    .toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            log.warn("{}: poll loop did not finish in time; its consumer may still be open", name);
        }
    }

    void submit(Settlement settlement) {
        if (finished) {
            // The consumer is gone: nothing can be committed any more; the record is redelivered later.
            settlement.failCommitWait(name + " closed before " + settlement.state().partition + "@"
                    + settlement.record().offset() + " was committed; it will be redelivered");
            return;
        }
        inbox.add(settlement);
    }

    private void run() {
        log.info(
                "{}: consuming {} (commit every {} ms, revoke wait {} ms)",
                name,
                topics,
                settings.commitInterval().toMillis(),
                settings.revokeWait().toMillis());
        boolean leave = true;
        try {
            consumer.subscribe(topics, rebalance);
            int failedTurns = 0;
            while (!closeRequested) {
                try {
                    turn();
                    failedTurns = 0;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    log.warn("{}: interrupted; closing", name);
                    break;
                } catch (FencedInstanceIdException e) {
                    // Another process joined with this consumer's group.instance.id (the same pod name): it owns
                    // the partitions now. Leaving would take them from it.
                    leave = false;
                    fail(
                            "fenced: another consumer joined the group with the same instance id (consumer ids must be"
                                    + " unique within a group; on Kubernetes they are the pod names): "
                                    + e.getMessage(),
                            e);
                    break;
                } catch (RuntimeException e) {
                    if (++failedTurns >= MAX_FAILED_TURNS) {
                        fail(failedTurns + " poll loop turns failed in a row, the last with " + e, e);
                        break;
                    }
                    log.warn(
                            "{}: poll loop turn failed ({} in a row), retrying in {} ms: {}",
                            name,
                            failedTurns,
                            ERROR_BACKOFF.toMillis(),
                            e.toString());
                    pause(ERROR_BACKOFF);
                }
            }
            rebalance.closing();
            inbox.applyTo(partitions);
            committer.commit(true, List.copyOf(partitions.all()));
        } catch (Throwable e) {
            fail("poll loop failed: " + e, e);
            if (e instanceof Error error) {
                throw error;
            }
        } finally {
            rebalance.closing();
            try {
                // Static members stay in the group on a plain close (so a restart keeps its partitions); a
                // worker that stops on purpose leaves, so its partitions move to the others at once.
                consumer.close(CloseOptions.groupMembershipOperation(
                                leave
                                        ? CloseOptions.GroupMembershipOperation.LEAVE_GROUP
                                        : CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP)
                        .withTimeout(LEAVE_TIMEOUT));
            } catch (RuntimeException e) {
                log.warn("{}: closing the consumer failed: {}", name, e.toString());
            }
            finished = true;
            inbox.failLeftovers(name);
            partitions.releaseAll("closed");
            log.info("{}: stopped", name);
        }
    }

    private void fail(String reason, Throwable cause) {
        failure = name + ": " + reason;
        log.error(
                "{}: {}; this consumer takes no more records and the worker reports itself unhealthy",
                name,
                reason,
                cause);
    }

    private void turn() throws InterruptedException {
        inbox.applyTo(partitions);
        partitions.promoteDue(System.nanoTime());
        boolean stopped = fetchingStopped || room.stopping();
        if (!stopped) {
            handOut();
        }
        maybeCommit();
        if (stopped) {
            // Everything paused: polling only keeps the membership alive and runs rebalance callbacks.
            partitions.updatePauses(true);
            poll(Duration.ZERO);
            inbox.awaitAndApply(IDLE_WAIT, partitions);
            return;
        }
        int waiting = partitions.waiting();
        if (waiting > 0 || room.free() <= 0) {
            // Full: wait for room rather than fetch more. Poll (paused) only when the wait runs out, so a
            // busy loop does not flap between pause and resume on every batch.
            int wanted = waiting == 0 ? room.batch() : Math.min(waiting, room.batch());
            if (room.await(wanted, IDLE_WAIT) > 0 && System.nanoTime() - lastPollNanos < MAX_POLL_GAP.toNanos()) {
                return;
            }
            partitions.updatePauses(true);
            poll(Duration.ZERO);
            return;
        }
        partitions.updatePauses(false);
        poll(POLL_TIMEOUT);
    }

    private void poll(Duration timeout) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(timeout);
        lastPollNanos = System.nanoTime();
        partitions.buffer(records);
    }

    /** Hands out as many buffered records as there is room for, in one call to the sink. */
    private void handOut() {
        int free = room.free();
        int n = Math.min(free, partitions.waiting());
        if (n <= 0) {
            return;
        }
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>(n);
        List<SettlementTicket> tickets = new ArrayList<>(n);
        HandOutQueue.Pending p;
        while (records.size() < n && (p = partitions.handOutNext()) != null) {
            records.add(p.record());
            tickets.add(new SettlementTicket(this, p.state(), p.record(), p.redeliveries()));
        }
        if (records.isEmpty()) {
            return;
        }
        try {
            sink.acceptAll(records, tickets);
        } catch (RuntimeException e) {
            log.warn(
                    "{}: handing out {} records ({}-{}@{} first) failed, retrying in {} ms: {}",
                    name,
                    records.size(),
                    records.get(0).topic(),
                    records.get(0).partition(),
                    records.get(0).offset(),
                    REDELIVERY_PAUSE.toMillis(),
                    e.toString());
            tickets.forEach(SettlementTicket::redeliverLater); // ignored for tickets the sink already used
        }
    }

    private void maybeCommit() {
        long now = System.nanoTime();
        if (now - nextCommitNanos < 0) {
            return;
        }
        nextCommitNanos = now + settings.commitInterval().toNanos();
        committer.commit(false, partitions.all());
    }

    private void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis()); // back-off after a failed turn, not waiting for an outcome
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closeRequested = true;
        }
    }
}
