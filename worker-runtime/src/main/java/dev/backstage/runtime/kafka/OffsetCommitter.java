package dev.backstage.runtime.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits, per partition, the offset settled without a gap and the offsets settled beyond it (in the commit
 * metadata, {@link CommitMetadata}), only when either changed; a confirmed commit releases the waits it covers,
 * a failed one is resent with the next. Poll thread only (the async callback runs inside the consumer's poll).
 */
final class OffsetCommitter {
    private static final Logger log = LoggerFactory.getLogger(OffsetCommitter.class);
    static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(15);

    private final String name;
    private final Consumer<byte[], byte[]> consumer;

    OffsetCommitter(String name, Consumer<byte[], byte[]> consumer) {
        this.name = name;
        this.consumer = consumer;
    }

    /** Commits every partition whose committable offset or settled-beyond set changed. */
    void commit(boolean sync, Collection<PartitionState> states) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        Map<TopicPartition, PartitionState> owners = new HashMap<>();
        for (PartitionState state : states) {
            if (state.released) {
                continue;
            }
            OptionalLong committable = state.tracker.committableOffset();
            if (committable.isEmpty()) {
                continue;
            }
            long offset = committable.getAsLong();
            String metadata = CommitMetadata.encode(offset, state.tracker.settledBeyondCommittable());
            if (offset == state.requestedOffset && metadata.equals(state.requestedMetadata)) {
                continue;
            }
            state.requestedOffset = offset;
            state.requestedMetadata = metadata;
            offsets.put(state.partition, new OffsetAndMetadata(offset, metadata));
            owners.put(state.partition, state);
        }
        if (offsets.isEmpty()) {
            return;
        }
        if (sync) {
            try {
                consumer.commitSync(offsets, COMMIT_TIMEOUT);
                committed(offsets, owners, null);
            } catch (KafkaException e) {
                committed(offsets, owners, e);
            }
        } else {
            consumer.commitAsync(offsets, (result, error) -> committed(offsets, owners, error));
        }
    }

    private void committed(
            Map<TopicPartition, OffsetAndMetadata> offsets,
            Map<TopicPartition, PartitionState> owners,
            Exception error) {
        if (error != null) {
            if (error instanceof RebalanceInProgressException) {
                // Expected while a cooperative rebalance runs: the group refuses commits until it settles.
                log.info("{}: commit of {} deferred: the group is rebalancing", name, describe(offsets));
            } else {
                log.warn(
                        "{}: commit of {} failed; it is retried with the next commit: {}",
                        name,
                        describe(offsets),
                        error.toString());
            }
            for (var e : offsets.entrySet()) {
                PartitionState state = owners.get(e.getKey());
                if (state.requestedOffset == e.getValue().offset()) {
                    state.requestedOffset = -1; // force a resend
                }
            }
            return;
        }
        for (var e : offsets.entrySet()) {
            PartitionState state = owners.get(e.getKey());
            if (!state.released) {
                state.confirmed(e.getValue().offset());
            }
        }
    }

    private static String describe(Map<TopicPartition, OffsetAndMetadata> offsets) {
        StringBuilder out = new StringBuilder();
        offsets.forEach((tp, om) ->
                out.append(out.length() == 0 ? "" : ", ").append(tp).append('@').append(om.offset()));
        return out.toString();
    }
}
