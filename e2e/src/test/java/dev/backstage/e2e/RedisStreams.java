package dev.backstage.e2e;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Reads the broker's own state for assertions: what is in a stream, what is pending. */
final class RedisStreams implements AutoCloseable {
    static final String URL = System.getenv().getOrDefault("BACKSTAGE_REDIS_URL", "redis://127.0.0.1:6379");

    private static final ObjectMapper JSON = new ObjectMapper();

    private final RedisClient client = RedisClient.create(URL);
    private final StatefulRedisConnection<String, String> connection = client.connect();

    RedisCommands<String, String> redis() {
        return connection.sync();
    }

    /** orderId → number of sendReceipt entries for it (a receipt is chained once per successful processOrder). */
    Map<String, Integer> receiptsPerOrder(String stream) throws Exception {
        Map<String, Integer> counts = new HashMap<>();
        String from = "-";
        while (true) {
            List<StreamMessage<String, String>> page =
                    redis().xrange(stream, Range.create(from, "+"), Limit.from(1000));
            for (StreamMessage<String, String> m : page) {
                if ("sendReceipt".equals(m.getBody().get("taskName"))) {
                    String orderId = JSON.readTree(m.getBody().get("payload"))
                            .path("orderId")
                            .asText();
                    counts.merge(orderId, 1, Integer::sum);
                }
            }
            if (page.size() < 1000) {
                return counts;
            }
            from = "(" + page.get(page.size() - 1).getId();
        }
    }

    long pending(String stream, String group) {
        return redis().xpending(stream, group).getCount();
    }

    /** How many entries the group has been handed so far (XINFO GROUPS entries-read). */
    long entriesRead(String stream, String group) {
        for (Object g : redis().xinfoGroups(stream)) {
            List<?> fields = (List<?>) g;
            Map<String, Object> map = new HashMap<>();
            for (int i = 0; i + 1 < fields.size(); i += 2) {
                map.put(String.valueOf(fields.get(i)), fields.get(i + 1));
            }
            if (group.equals(map.get("name"))) {
                return ((Number) map.get("entries-read")).longValue();
            }
        }
        return 0;
    }

    /** Entries pending for one consumer (a pod: the runtime uses the pod name as its consumer name). */
    long pendingOf(String stream, String group, String consumer) {
        return redis().xpending(
                        stream,
                        io.lettuce.core.Consumer.from(group, consumer),
                        Range.create("-", "+"),
                        Limit.from(10_000))
                .size();
    }

    /**
     * A stream's own counters (XINFO STREAM): its length, {@code entries-added} (every XADD over the stream's life;
     * it starts again from 0 only when the stream is deleted and made again), its first entry's id (null when it is
     * empty) and the last id it gave out.
     */
    record StreamCounters(long length, long entriesAdded, String firstId, String lastId) {}

    StreamCounters counters(String stream) {
        List<Object> info = redis().xinfoStream(stream);
        Map<String, Object> map = new HashMap<>();
        for (int i = 0; i + 1 < info.size(); i += 2) {
            map.put(String.valueOf(info.get(i)), info.get(i + 1));
        }
        return new StreamCounters(
                ((Number) map.get("length")).longValue(),
                ((Number) map.get("entries-added")).longValue(),
                map.get("first-entry") instanceof List<?> first ? String.valueOf(first.get(0)) : null,
                String.valueOf(map.get("last-generated-id")));
    }

    /** How many entries the stream holds after {@code id} (exclusive). */
    long countAfter(String stream, String id) {
        long count = 0;
        String from = "(" + id;
        while (true) {
            List<StreamMessage<String, String>> page =
                    redis().xrange(stream, Range.create(from, "+"), Limit.from(1000));
            count += page.size();
            if (page.size() < 1000) {
                return count;
            }
            from = "(" + page.get(page.size() - 1).getId();
        }
    }

    /** Deletes every key that starts with {@code prefix} (a test's own key prefix, when it is done). */
    void deleteKeys(String prefix) {
        List<String> keys = redis().keys(prefix + "*");
        if (!keys.isEmpty()) {
            redis().del(keys.toArray(String[]::new));
        }
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
