package dev.backstage.runtime.redis;

import dev.backstage.testsupport.UniqueNames;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;

/**
 * The real local Redis with a unique prefix per test and fast reclaim timings; removes the test's keys
 * when closed. In {@link RedisMode#CLUSTER} it is the 6-node cluster {@code bin/lib.sh} starts on 7000-7005, in
 * {@link RedisMode#SENTINEL} the Sentinel group on 26379-26381 (master {@code backstage}).
 */
public final class RedisTestSupport implements AutoCloseable {
    public static final String URL = System.getenv().getOrDefault("BACKSTAGE_REDIS_URL", "redis://127.0.0.1:6379");
    public static final String CLUSTER_URL = System.getenv()
            .getOrDefault(
                    "BACKSTAGE_REDIS_CLUSTER_URL", "redis+cluster://127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002");
    public static final String SENTINEL_URL = System.getenv()
            .getOrDefault(
                    "BACKSTAGE_REDIS_SENTINEL_URL",
                    "redis-sentinel://127.0.0.1:26379,127.0.0.1:26380,127.0.0.1:26381#backstage");

    private final RedisMode mode;
    private final String url;
    private final String prefix;
    private final AbstractRedisClient client;
    private final StatefulConnection<String, String> connection;
    private final RedisClusterCommands<String, String> commands;

    public RedisTestSupport() {
        this(RedisMode.STANDALONE);
    }

    public RedisTestSupport(RedisMode mode) {
        this(mode, UniqueNames.prefix("bstest"));
    }

    /** With a prefix of the test's choosing, e.g. one in braces (the seed layout on a cluster). */
    public RedisTestSupport(RedisMode mode, String prefix) {
        this(mode, url(mode), prefix);
    }

    /** On another Redis than the shared one of this mode, e.g. a {@code PrivateRedisCluster}'s URL. */
    public RedisTestSupport(RedisMode mode, String url, String prefix) {
        this.mode = mode;
        this.url = url;
        this.prefix = prefix;
        var uris = RedisEndpoints.of(url, mode);
        if (mode == RedisMode.CLUSTER) {
            RedisClusterClient cluster = RedisClusterClient.create(uris);
            // Follows a failover as the provider does, so assertions after a killed primary reach the new one.
            cluster.setOptions(ClusterClientOptions.builder()
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                            .enablePeriodicRefresh(Duration.ofSeconds(1))
                            .enableAllAdaptiveRefreshTriggers()
                            .build())
                    .build());
            StatefulRedisClusterConnection<String, String> c = cluster.connect();
            client = cluster;
            connection = c;
            commands = c.sync();
        } else {
            RedisClient single = RedisClient.create(uris.get(0));
            StatefulRedisConnection<String, String> c = single.connect();
            client = single;
            connection = c;
            commands = c.sync();
        }
    }

    public static String url(RedisMode mode) {
        return switch (mode) {
            case STANDALONE -> URL;
            case CLUSTER -> CLUSTER_URL;
            case SENTINEL -> SENTINEL_URL;
        };
    }

    public RedisMode mode() {
        return mode;
    }

    public String prefix() {
        return prefix;
    }

    /** The key layout the provider uses in this mode with this prefix. */
    public RedisKeys keys() {
        return RedisKeys.of(prefix, mode);
    }

    /** Settings with this test's prefix and timings short enough for tests. */
    public RedisSettings settings() {
        return RedisSettings.of(url)
                .withPrefix(prefix)
                .withIdleTimeout(Duration.ofSeconds(2))
                .withReclaimInterval(Duration.ofMillis(250));
    }

    public RedisProvider provider() {
        return RedisProvider.connect(settings());
    }

    /** Raw commands (routed by slot in a cluster), for asserting on the broker's own state. */
    public RedisClusterCommands<String, String> redis() {
        return commands;
    }

    @Override
    public void close() {
        for (String pattern : new String[] {glob(prefix) + ":*", "{" + glob(prefix) + ":*"}) {
            var match = ScanArgs.Builder.matches(pattern).limit(1000);
            var scan = redis().scan(match);
            while (true) {
                for (String key : scan.getKeys()) {
                    redis().del(key);
                }
                if (scan.isFinished()) {
                    break;
                }
                scan = redis().scan(scan, match);
            }
        }
        connection.close();
        client.shutdown();
    }

    private static String glob(String text) {
        return text.replaceAll("([*?\\[\\]\\\\{}])", "\\\\$1");
    }
}
