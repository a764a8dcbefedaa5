package dev.backstage.runtime.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
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
 * <p>Rebalance: on revoke it stops handing out those partitions' records, waits up to {@code revokeWait}
 * for their in-flight records, commits what is settled and lets the rest go to the next owner. Lost
 * partitions (the group moved on without us) are dropped without a commit.
 *
 * <p>Shutdown: {@link #stopFetching()} pauses everything while settlements keep being applied and
 * committed; {@link #close()} makes a final synchronous commit and closes the consumer.
 *
 * <p>Its parts: {@link HandOutQueue} (records waiting to be handed out, redeliveries due later),
 * {@link PartitionPauses} (which partitions fetch), {@link OffsetCommitter} (what to commit and its outcome),
 * {@link PartitionState} (one partition's bookkeeping), {@link Settlement}s from {@link SettlementTicket}s.
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
    // Lock-free: handler threads add, the poll thread drains. The loop parks only when it has nothing else
    // to do (revoke wait, stopped, topic room) and asks to be unparked by setting waitingForSettlement.
    private final ConcurrentLinkedQueue<Settlement> settlements = new ConcurrentLinkedQueue<>();
    private volatile boolean waitingForSettlement;
    private final CountDownLatch firstAssignment = new CountDownLatch(1);

    // Poll-thread state.
    private final Map<TopicPartition, PartitionState> partitions = new LinkedHashMap<>();
    private final HandOutQueue queue = new HandOutQueue();
    private final PartitionPauses pauses;
    private final OffsetCommitter committer;
    private int inFlightTotal;
    private long nextCommitNanos;
    private long lastPollNanos;
    private boolean closing;

    private volatile boolean fetchingStopped;
    private volatile boolean closeRequested;
    private volatile boolean finished;
    private volatile String failure;

    /**
     * @param room      how many records may be handed out (the worker's allowance), or null to allow
     *                  {@code ownLimit} records in flight, counted by this loop (topic subscriptions)
     */
    KafkaPollLoop(String name, Consumer<byte[], byte[]> consumer, List<String> topics, Room room, int ownLimit,
            RecordSink sink, KafkaSettings settings) {
        this.name = name;
        this.consumer = consumer;
        this.topics = List.copyOf(topics);
        this.room = room != null ? room : new OwnLimit(ownLimit);
        this.sink = sink;
        this.settings = settings;
        this.pauses = new PartitionPauses(consumer, settings.maxUncommittedPerPartition());
        this.committer = new OffsetCommitter(name, consumer);
        this.thread = new Thread(this::run, name);
        this.thread.setDaemon(true);
    }

    /** A room of {@code limit} records in flight, counted by this loop itself (poll thread only). */
    private final class OwnLimit implements Room {
        private final int limit;

        OwnLimit(int limit) {
            this.limit = limit;
        }

        @Override
        public int free() {
            return Math.max(0, limit - inFlightTotal);
        }

        @Override
        public boolean stopping() {
            return false;
        }

        @Override
        public int await(int atLeast, Duration max) throws InterruptedException {
            awaitSettlement(max);
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
        return firstAssignment.await(max.toMillis(), TimeUnit.MILLISECONDS);
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
            thread.join(settings.revokeWait().plus(OffsetCommitter.COMMIT_TIMEOUT).plusSeconds(10).toMillis());
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
        settlements.add(settlement);
        if (waitingForSettlement) {
            LockSupport.unpark(thread);
        }
    }

    private void run() {
        log.info("{}: consuming {} (commit every {} ms, revoke wait {} ms)", name, topics,
                settings.commitInterval().toMillis(), settings.revokeWait().toMillis());
        boolean leave = true;
        try {
            consumer.subscribe(topics, new Rebalance());
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
                    fail("fenced: another consumer joined the group with the same instance id (consumer ids must be"
                            + " unique within a group; on Kubernetes they are the pod names): " + e.getMessage(), e);
                    break;
                } catch (RuntimeException e) {
                    if (++failedTurns >= MAX_FAILED_TURNS) {
                        fail(failedTurns + " poll loop turns failed in a row, the last with " + e, e);
                        break;
                    }
                    log.warn("{}: poll loop turn failed ({} in a row), retrying in {} ms: {}", name, failedTurns,
                            ERROR_BACKOFF.toMillis(), e.toString());
                    pause(ERROR_BACKOFF);
                }
            }
            closing = true;
            applySettlements();
            committer.commit(true, List.copyOf(partitions.values()));
        } catch (Throwable e) {
            fail("poll loop failed: " + e, e);
            if (e instanceof Error error) {
                throw error;
            }
        } finally {
            closing = true;
            try {
                // Static members stay in the group on a plain close (so a restart keeps its partitions); a
                // worker that stops on purpose leaves, so its partitions move to the others at once.
                consumer.close(CloseOptions.groupMembershipOperation(leave
                        ? CloseOptions.GroupMembershipOperation.LEAVE_GROUP
                        : CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP).withTimeout(LEAVE_TIMEOUT));
            } catch (RuntimeException e) {
                log.warn("{}: closing the consumer failed: {}", name, e.toString());
            }
            finished = true;
            failLeftoverSettlements();
            log.info("{}: stopped", name);
        }
    }

    private void fail(String reason, Throwable cause) {
        failure = name + ": " + reason;
        log.error("{}: {}; this consumer takes no more records and the worker reports itself unhealthy", name, reason,
                cause);
    }

    private void turn() throws InterruptedException {
        applySettlements();
        queue.promoteDue(System.nanoTime());
        boolean stopped = fetchingStopped || room.stopping();
        if (!stopped) {
            handOut();
        }
        maybeCommit();
        if (stopped) {
            // Everything paused: polling only keeps the membership alive and runs rebalance callbacks.
            pauses.update(partitions.values(), true);
            poll(Duration.ZERO);
            awaitSettlement(IDLE_WAIT);
            return;
        }
        if (!queue.isEmpty() || room.free() <= 0) {
            // Full: wait for room rather than fetch more. Poll (paused) only when the wait runs out, so a
            // busy loop does not flap between pause and resume on every batch.
            int wanted = queue.isEmpty() ? room.batch() : Math.min(queue.size(), room.batch());
            if (room.await(wanted, IDLE_WAIT) > 0 && System.nanoTime() - lastPollNanos < MAX_POLL_GAP.toNanos()) {
                return;
            }
            pauses.update(partitions.values(), true);
            poll(Duration.ZERO);
            return;
        }
        pauses.update(partitions.values(), false);
        poll(POLL_TIMEOUT);
    }

    private void poll(Duration timeout) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(timeout);
        lastPollNanos = System.nanoTime();
        bufferRecords(records);
    }

    private void bufferRecords(ConsumerRecords<byte[], byte[]> records) {
        for (TopicPartition partition : records.partitions()) {
            PartitionState state = stateFor(partition);
            for (ConsumerRecord<byte[], byte[]> record : records.records(partition)) {
                if (record.offset() <= state.tracker.lastTracked()) {
                    // Fetched before (a position reset): it is in flight or settled already.
                    log.debug("{}: skipping {}@{} fetched twice", name, partition, record.offset());
                    continue;
                }
                if (state.tracker.track(record.offset()) == ContiguousOffsetTracker.Tracked.ALREADY_SETTLED) {
                    continue; // settled by the previous owner after its last commit position
                }
                queue.add(state, record);
            }
        }
    }

    private PartitionState stateFor(TopicPartition partition) {
        PartitionState state = partitions.get(partition);
        if (state == null) {
            // Only when the assignment callback could not read the committed metadata.
            state = new PartitionState(partition, new ContiguousOffsetTracker<>());
            partitions.put(partition, state);
        }
        return state;
    }

    /** Hands out as many buffered records as there is room for, in one call to the sink. */
    private void handOut() {
        int free = room.free();
        if (free <= 0 || queue.isEmpty()) {
            return;
        }
        int n = Math.min(free, queue.size());
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>(n);
        List<SettlementTicket> tickets = new ArrayList<>(n);
        while (records.size() < n && !queue.isEmpty()) {
            HandOutQueue.Pending p = queue.next();
            if (p.state().released) {
                continue;
            }
            p.state().inFlight++;
            inFlightTotal++;
            records.add(p.record());
            tickets.add(new SettlementTicket(this, p.state(), p.record(), p.redeliveries()));
        }
        if (records.isEmpty()) {
            return;
        }
        try {
            sink.acceptAll(records, tickets);
        } catch (RuntimeException e) {
            log.warn("{}: handing out {} records ({}-{}@{} first) failed, retrying in {} ms: {}", name, records.size(),
                    records.get(0).topic(), records.get(0).partition(), records.get(0).offset(),
                    REDELIVERY_PAUSE.toMillis(), e.toString());
            tickets.forEach(SettlementTicket::redeliverLater); // ignored for tickets the sink already used
        }
    }

    private void applySettlements() {
        Settlement s;
        while ((s = settlements.poll()) != null) {
            apply(s);
        }
    }

    /** Parks until a settlement arrives or {@code max} passes, then applies what arrived. */
    private void awaitSettlement(Duration max) throws InterruptedException {
        waitingForSettlement = true;
        try {
            // A settlement added between this check and the park leaves an unpark permit: no lost wake-up.
            if (settlements.isEmpty()) {
                LockSupport.parkNanos(this, max.toNanos());
            }
        } finally {
            waitingForSettlement = false;
        }
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        applySettlements();
    }

    private void apply(Settlement s) {
        PartitionState state = s.state();
        if (state.released) {
            s.failCommitWait(state.partition + " was revoked before offset " + s.record().offset()
                    + " settled; its next owner runs it again");
            return;
        }
        state.inFlight--;
        inFlightTotal--;
        switch (s.kind()) {
            case SETTLED -> {
                state.tracker.settle(s.record().offset(), s.untilCommitted());
            }
            case ABANDONED -> {
                // Stays unsettled: the commit cannot pass it, so it is redelivered after a restart or rebalance.
            }
            case REDELIVER -> queue.redeliverAt(System.nanoTime() + s.after().toNanos(), state, s.record(),
                    s.redeliveries());
        }
    }

    private void maybeCommit() {
        long now = System.nanoTime();
        if (now - nextCommitNanos < 0) {
            return;
        }
        nextCommitNanos = now + settings.commitInterval().toNanos();
        committer.commit(false, partitions.values());
    }

    private void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis()); // back-off after a failed turn, not waiting for an outcome
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closeRequested = true;
        }
    }

    private void failLeftoverSettlements() {
        Settlement s;
        while ((s = settlements.poll()) != null) {
            s.failCommitWait(name + " closed before " + s.state().partition + "@" + s.record().offset() + " was committed");
        }
        for (PartitionState state : partitions.values()) {
            state.release("closed");
        }
    }

    /** Runs inside {@code consumer.poll}, on the poll thread. */
    private final class Rebalance implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
            if (!assigned.isEmpty()) {
                Map<TopicPartition, OffsetAndMetadata> committed = Map.of();
                try {
                    committed = consumer.committed(new HashSet<>(assigned), OffsetCommitter.COMMIT_TIMEOUT);
                } catch (KafkaException e) {
                    log.warn("{}: could not read committed offsets of {}; records settled after the last commit"
                            + " may run again: {}", name, assigned, e.toString());
                }
                int skipped = 0;
                for (TopicPartition tp : assigned) {
                    OffsetAndMetadata om = committed.get(tp);
                    long[] presettled = om == null ? new long[0] : CommitMetadata.decode(om.offset(), om.metadata());
                    skipped += presettled.length;
                    PartitionState previous = partitions.put(tp, new PartitionState(tp, new ContiguousOffsetTracker<>(presettled)));
                    if (previous != null) {
                        inFlightTotal -= previous.inFlight;
                        previous.release("reassigned");
                    }
                }
                queue.dropReleased();
                log.info("{}: assigned {}{}", name, assigned,
                        skipped == 0 ? "" : " (" + skipped + " records settled by the previous owner will be skipped)");
                // Resolve start positions now, so a new group's "latest" means latest as of the assignment.
                for (TopicPartition tp : assigned) {
                    consumer.position(tp, OffsetCommitter.COMMIT_TIMEOUT);
                }
            }
            firstAssignment.countDown();
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
            if (revoked.isEmpty()) {
                return;
            }
            List<PartitionState> states = revoked.stream().map(partitions::get).filter(s -> s != null).toList();
            int waiting = awaitInFlight(states);
            committer.commit(true, states);
            release(states, "revoked");
            if (waiting > 0) {
                log.warn("{}: revoked {} with {} records still running after {} ms; they were not committed and"
                        + " their next owner runs them again", name, revoked, waiting, settings.revokeWait().toMillis());
            } else {
                log.info("{}: revoked {} after committing settled records", name, revoked);
            }
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> lost) {
            if (lost.isEmpty()) {
                return;
            }
            List<PartitionState> states = lost.stream().map(partitions::get).filter(s -> s != null).toList();
            release(states, "lost");
            log.warn("{}: lost {} (group moved on without us); nothing committed for them", name, lost);
        }

        /** Waits (bounded) for the in-flight records of {@code states}; returns how many are still running. */
        private int awaitInFlight(List<PartitionState> states) {
            long deadline = System.nanoTime() + (closing ? 0 : settings.revokeWait().toNanos());
            applySettlements();
            while (running(states) > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                try {
                    awaitSettlement(Duration.ofNanos(Math.min(left, IDLE_WAIT.toNanos())));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
                applySettlements();
            }
            return running(states);
        }

        private int running(List<PartitionState> states) {
            int n = 0;
            for (PartitionState s : states) {
                n += s.inFlight;
            }
            return n;
        }

        private void release(List<PartitionState> states, String why) {
            for (PartitionState state : states) {
                inFlightTotal -= state.inFlight;
                state.release(why);
                partitions.remove(state.partition);
                pauses.forget(state.partition);
            }
            queue.dropReleased();
        }
    }
}
