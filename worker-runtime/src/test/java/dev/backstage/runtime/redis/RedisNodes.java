package dev.backstage.runtime.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The loopback cluster and Sentinel group of {@code bin/lib.sh}, seen node by node: who is primary for a key, the
 * process behind a port (to kill it with SIGKILL), and starting what does not answer again with the script's own
 * {@code ensure_redis_cluster} / {@code ensure_redis_sentinel}.
 */
final class RedisNodes {
    private RedisNodes() {}

    /** A one-off command to the node on {@code port}. */
    static <T> T onNode(
            int port, java.util.function.Function<io.lettuce.core.api.sync.RedisCommands<String, String>, T> call) {
        RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", port));
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            return call.apply(c.sync());
        } finally {
            client.shutdown();
        }
    }

    /** The port of the primary that owns {@code key}'s slot, as the cluster node on {@code askPort} sees it. */
    static int clusterPrimaryOf(String key, int askPort) {
        String nodes = onNode(askPort, r -> r.clusterNodes());
        RedisClusterNode owner = ClusterPartitionParser.parse(nodes).getPartitionBySlot(SlotHash.getSlot(key));
        return owner.getUri().getPort();
    }

    /** The port of the primary the sentinel on {@code sentinelPort} names for {@code master}. */
    static int sentinelPrimary(int sentinelPort, String master) {
        RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", sentinelPort));
        try (var c = client.connectSentinel()) {
            return ((java.net.InetSocketAddress) c.sync().getMasterAddrByName(master)).getPort();
        } finally {
            client.shutdown();
        }
    }

    /** SIGKILL to the redis-server listening on {@code port} (its pid from INFO server); returns when it is gone. */
    static void kill9(int port) {
        long pid = Long.parseLong(onNode(port, r -> r.info("server"))
                .lines()
                .filter(l -> l.startsWith("process_id:"))
                .findFirst()
                .orElseThrow()
                .substring(11)
                .trim());
        ProcessHandle process = ProcessHandle.of(pid).orElseThrow();
        process.destroyForcibly(); // SIGKILL on Linux: no shutdown, no last write to the replicas
        process.onExit().join();
    }

    /** Runs {@code ensure_<what>} of bin/lib.sh: restarts the nodes that do not answer and waits until all is ready. */
    static void ensure(String what) {
        Path lib = root().resolve("bin/lib.sh");
        try {
            Process p = new ProcessBuilder("bash", "-c", "source \"$0\" && ensure_" + what, lib.toString())
                    .redirectErrorStream(true)
                    .start();
            String output = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("bin/lib.sh ensure_" + what + " failed: " + output.strip());
            }
            if (!output.isBlank()) {
                System.out.println(output.strip());
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static Path root() {
        for (Path dir = new File("").getAbsoluteFile().toPath(); dir != null; dir = dir.getParent()) {
            if (Files.exists(dir.resolve("bin/lib.sh"))) {
                return dir;
            }
        }
        throw new IllegalStateException("bin/lib.sh not found above " + new File("").getAbsolutePath());
    }

    static List<Integer> clusterPorts() {
        return List.of(7000, 7001, 7002, 7003, 7004, 7005);
    }
}
