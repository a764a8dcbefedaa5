package dev.backstage.runtime.redis;

import io.lettuce.core.Consumer;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.XReadArgs.StreamOffset;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One consumer's XREADGROUP over its streams. On one node (or when every stream hashes to one slot) it is one
 * blocking read over all of them, as the seed SDKs do. In a cluster with per-queue hash tags the streams live in
 * different slots, and one XREADGROUP may only name keys of one slot: each slot's streams are read without
 * blocking, in the consumer's queue order, and when none had anything the read blocks on one slot at a time, in
 * turn, for at most {@link #CLUSTER_BLOCK}, so a job on another slot waits at most that long to be seen.
 */
final class SlotReads {
    static final Duration CLUSTER_BLOCK = Duration.ofMillis(50);

    private final List<StreamOffset<String>[]> bySlot;
    private final Duration block;
    private int turn;

    SlotReads(List<StreamOffset<String>[]> bySlot, Duration block) {
        this.bySlot = bySlot;
        this.block = bySlot.size() == 1 || block.compareTo(CLUSTER_BLOCK) < 0 ? block : CLUSTER_BLOCK;
    }

    /** The streams' offsets ({@code >}) grouped by hash slot, in the order the streams were given. */
    @SuppressWarnings("unchecked")
    static List<StreamOffset<String>[]> offsetsBySlot(Collection<String> streams) {
        Map<Integer, List<StreamOffset<String>>> groups = new LinkedHashMap<>();
        for (String stream : streams) {
            groups.computeIfAbsent(SlotHash.getSlot(stream), slot -> new ArrayList<>())
                    .add(StreamOffset.lastConsumed(stream));
        }
        List<StreamOffset<String>[]> out = new ArrayList<>();
        groups.values().forEach(offsets -> out.add(offsets.toArray(StreamOffset[]::new)));
        return out;
    }

    List<StreamMessage<String, String>> read(RedisLink connection, Consumer<String> me, int perStream) {
        if (bySlot.size() == 1) {
            return connection
                    .sync()
                    .xreadgroup(me, XReadArgs.Builder.count(perStream).block(block), bySlot.get(0));
        }
        List<StreamMessage<String, String>> out = new ArrayList<>();
        for (StreamOffset<String>[] offsets : bySlot) {
            out.addAll(connection.sync().xreadgroup(me, XReadArgs.Builder.count(perStream), offsets));
        }
        if (!out.isEmpty()) {
            return out;
        }
        turn = (turn + 1) % bySlot.size();
        return connection
                .sync()
                .xreadgroup(me, XReadArgs.Builder.count(perStream).block(block), bySlot.get(turn));
    }
}
