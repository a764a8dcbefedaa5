package dev.backstage.runtime.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A poll loop's answer to rebalances; runs inside {@code consumer.poll}, on the poll thread.
 *
 * <p>Assigned: reads the committed offsets and their metadata ({@link CommitMetadata}) so records the previous
 * owner settled beyond its commit position are skipped, and resolves the start positions at once (so a new
 * group's "latest" means latest as of the assignment); a partition of a topic in {@code fromEarliest} without a
 * committed offset starts at its beginning whatever the consumer's reset policy (a subscription's retry topic:
 * a retry copy produced before the group ever committed there must not be skipped). Revoked: stops handing out those partitions' records,
 * waits up to {@code revokeWait} for their in-flight records (none once the loop is closing), commits what is
 * settled and lets the rest go to the next owner. Lost (the group moved on without us): dropped without a commit.
 */
final class RebalanceListener implements ConsumerRebalanceListener {
    private static final Logger log = LoggerFactory.getLogger(RebalanceListener.class);

    private final String name;
    private final Consumer<byte[], byte[]> consumer;
    private final AssignedPartitions partitions;
    private final SettlementInbox inbox;
    private final OffsetCommitter committer;
    private final Duration revokeWait;
    private final Duration waitStep;
    private final Set<String> fromEarliest;
    private final CountDownLatch firstAssignment = new CountDownLatch(1);
    private boolean closing;

    RebalanceListener(
            String name,
            Consumer<byte[], byte[]> consumer,
            AssignedPartitions partitions,
            SettlementInbox inbox,
            OffsetCommitter committer,
            Duration revokeWait,
            Duration waitStep,
            Set<String> fromEarliest) {
        this.name = name;
        this.consumer = consumer;
        this.partitions = partitions;
        this.inbox = inbox;
        this.committer = committer;
        this.revokeWait = revokeWait;
        this.waitStep = waitStep;
        this.fromEarliest = Set.copyOf(fromEarliest);
    }

    /** Waits until the group gave this consumer its first assignment (positions resolved). Any thread. */
    boolean awaitFirstAssignment(Duration max) throws InterruptedException {
        return firstAssignment.await(max.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The loop is closing: a revoke no longer waits for in-flight records. */
    void closing() {
        closing = true;
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
        if (!assigned.isEmpty()) {
            Map<TopicPartition, OffsetAndMetadata> committed = null;
            try {
                committed = consumer.committed(new HashSet<>(assigned), OffsetCommitter.COMMIT_TIMEOUT);
            } catch (KafkaException e) {
                log.warn(
                        "{}: could not read committed offsets of {}; records settled after the last commit"
                                + " may run again: {}",
                        name,
                        assigned,
                        e.toString());
            }
            int skipped = 0;
            List<TopicPartition> fromStart = new ArrayList<>();
            for (TopicPartition tp : assigned) {
                OffsetAndMetadata om = committed == null ? null : committed.get(tp);
                if (committed != null && om == null && fromEarliest.contains(tp.topic())) {
                    fromStart.add(tp);
                }
                long[] presettled = om == null ? new long[0] : CommitMetadata.decode(om.offset(), om.metadata());
                skipped += presettled.length;
                partitions.assign(tp, presettled);
            }
            log.info(
                    "{}: assigned {}{}",
                    name,
                    assigned,
                    skipped == 0 ? "" : " (" + skipped + " records settled by the previous owner will be skipped)");
            if (!fromStart.isEmpty()) {
                consumer.seekToBeginning(fromStart);
            }
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
        List<PartitionState> states = partitions.of(revoked);
        int waiting = awaitInFlight(states);
        committer.commit(true, states);
        partitions.release(states, "revoked");
        if (waiting > 0) {
            log.warn(
                    "{}: revoked {} with {} records still running after {} ms; they were not committed and"
                            + " their next owner runs them again",
                    name,
                    revoked,
                    waiting,
                    revokeWait.toMillis());
        } else {
            log.info("{}: revoked {} after committing settled records", name, revoked);
        }
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> lost) {
        if (lost.isEmpty()) {
            return;
        }
        partitions.release(partitions.of(lost), "lost");
        log.warn("{}: lost {} (group moved on without us); nothing committed for them", name, lost);
    }

    /** Waits (bounded) for the in-flight records of {@code states}; returns how many are still running. */
    private int awaitInFlight(List<PartitionState> states) {
        long deadline = System.nanoTime() + (closing ? 0 : revokeWait.toNanos());
        inbox.applyTo(partitions);
        while (AssignedPartitions.running(states) > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            try {
                inbox.awaitAndApply(Duration.ofNanos(Math.min(left, waitStep.toNanos())), partitions);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return AssignedPartitions.running(states);
    }
}
