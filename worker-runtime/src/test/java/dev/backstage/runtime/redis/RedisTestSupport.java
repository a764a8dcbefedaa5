package dev.backstage.runtime.redis;

import dev.backstage.testsupport.UniqueNames;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;

/**
 * The real local Redis with a unique prefix per test and fast reclaim timings; removes the test's keys
 * when closed.
 */
public final class RedisTestSupport implements AutoCloseable {
    public static final String URL = System.getenv().getOrDefault("BACKSTAGE_REDIS_URL", "redis://127.0.0.1:6379");

    private final String prefix = UniqueNames.prefix("bstest");
    private final RedisClient client = RedisClient.create(URL);
    private final StatefulRedisConnection<String, String> connection = client.connect();

    public String prefix() {
        return prefix;
    }

    /** Settings with this test's prefix and timings short enough for tests. */
    public RedisSettings settings() {
        return RedisSettings.of(URL).withPrefix(prefix)
                .withIdleTimeout(Duration.ofSeconds(2))
                .withReclaimInterval(Duration.ofMillis(250));
    }

    public RedisProvider provider() {
        return RedisProvider.connect(settings());
    }

    /** Raw commands, for asserting on the broker's own state. */
    public RedisCommands<String, String> redis() {
        return connection.sync();
    }

    @Override
    public void close() {
        var scan = redis().scan(ScanArgs.Builder.matches(prefix + ":*").limit(1000));
        while (true) {
            if (!scan.getKeys().isEmpty()) {
                redis().del(scan.getKeys().toArray(String[]::new));
            }
            if (scan.isFinished()) {
                break;
            }
            scan = redis().scan(scan, ScanArgs.Builder.matches(prefix + ":*").limit(1000));
        }
        connection.close();
        client.shutdown();
    }
}
