package dev.backstage.e2e.bench;

import dev.backstage.e2e.node.NodeAgent;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What the broker and the pods' logs say about one side's jobs since a trace started. An order's wait is from its
 * entry (the broker's time in the entry id) to its handler's start, which is the entry time of the receipt the
 * handler chained less the handler's fixed work; the receipt's own wait is not visible this way. A killed job is a
 * delivery a worker left for redelivery when its shutdown grace ran out (its log says so).
 *
 * @param done        orders whose receipt is on the stream
 * @param waitsMillis each done order's wait, ascending
 */
record JobLedger(int done, long[] waitsMillis) {
    private static final Pattern ORDER_ID = Pattern.compile("\"orderId\"\\s*:\\s*\"([^\"]+)\"");
    private static final String KILLED = "left for redelivery";

    static JobLedger read(StatefulRedisConnection<String, String> redis, String prefix, long sinceMillis, int workMs) {
        Map<String, Long> enqueued = new HashMap<>();
        Map<String, Long> receipts = new HashMap<>();
        for (StreamMessage<String, String> m :
                redis.sync().xrange(prefix + ":default", Range.create(sinceMillis + "-0", "+"))) {
            Matcher id = ORDER_ID.matcher(m.getBody().getOrDefault("payload", ""));
            if (!id.find()) {
                continue;
            }
            long at = Long.parseLong(m.getId().substring(0, m.getId().indexOf('-')));
            Map<String, Long> target = "sendReceipt".equals(m.getBody().get("taskName")) ? receipts : enqueued;
            target.merge(id.group(1), at, Math::min);
        }
        List<Long> waits = new ArrayList<>();
        enqueued.forEach((order, at) -> {
            Long receipt = receipts.get(order);
            if (receipt != null) {
                waits.add(Math.max(0, receipt - workMs - at));
            }
        });
        return new JobLedger(
                waits.size(), waits.stream().mapToLong(Long::longValue).sorted().toArray());
    }

    long p99WaitMillis() {
        return waitsMillis.length == 0 ? 0 : waitsMillis[(int) Math.ceil(0.99 * waitsMillis.length) - 1];
    }

    long maxWaitMillis() {
        return waitsMillis.length == 0 ? 0 : waitsMillis[waitsMillis.length - 1];
    }

    /** Deliveries left for redelivery at shutdown by the pool's pods so far (their logs stay on the node). */
    static int killed(NodeAgent node, String namespace, String pool) {
        Path dir = node.podDir(namespace, "x").getParent();
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> pods = Files.list(dir)) {
            int count = 0;
            for (Path pod : pods.filter(p -> p.getFileName().toString().startsWith(pool + "-"))
                    .toList()) {
                Path log = pod.resolve("pod.log");
                if (Files.exists(log)) {
                    try (Stream<String> lines = Files.lines(log)) {
                        count += (int) lines.filter(l -> l.contains(KILLED)).count();
                    }
                }
            }
            return count;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
