package dev.backstage.runtime.redis;

import dev.backstage.runtime.spi.ClaimingPublisher;
import dev.backstage.runtime.spi.DedupeCapability;
import dev.backstage.runtime.spi.JobsCapability;
import io.lettuce.core.SetArgs;
import java.time.Duration;

/**
 * Dedupe with {@code SET {p}:dedupe:{key} 1 NX PX max(1, ttl in ms)} (docs/wire-format.md): the TTL in milliseconds, as
 * the seed SDKs store it (1.5 s is 1,500 ms, not 2 s). Like the seed,
 * the marker is not removed if the enqueue after it fails: a failed enqueue must be retried with a new key
 * or after the TTL. {@link #release} (DEL) is for callers that retry the same key themselves (cron ticks).
 * Cron ticks whose jobs go to this same Redis are claimed and enqueued in one script instead
 * ({@link #claimingPublisher}, {@link RedisTickClaims}).
 */
public final class RedisDedupe implements DedupeCapability, AutoCloseable {
    private final RedisProvider provider;
    private final RedisProvider owned;

    RedisDedupe(RedisProvider provider, RedisProvider owned) {
        this.provider = provider;
        this.owned = owned;
    }

    public static RedisDedupe connect(String uri) {
        RedisProvider provider = RedisProvider.connect(uri);
        return new RedisDedupe(provider, provider);
    }

    @Override
    public String backend() {
        return "redis";
    }

    @Override
    public boolean tryClaim(String key, Duration ttl) {
        long millis = Math.max(1, ttl.toMillis());
        return "OK"
                .equals(provider.sync()
                        .set(
                                provider.keys().dedupe(key),
                                "1",
                                SetArgs.Builder.nx().px(millis)));
    }

    @Override
    public boolean release(String key) {
        provider.sync().del(provider.keys().dedupe(key));
        return true;
    }

    /** The one-script claim and enqueue when {@code jobs} are this Redis's (same URL and key layout). */
    @Override
    public java.util.Optional<ClaimingPublisher> claimingPublisher(JobsCapability jobs) {
        if (jobs instanceof RedisJobs redisJobs && sameRedis(redisJobs.provider())) {
            return java.util.Optional.of(new RedisTickClaims(redisJobs.provider()));
        }
        return java.util.Optional.empty();
    }

    private boolean sameRedis(RedisProvider other) {
        return other == provider
                || (other.settings().uri().equals(provider.settings().uri())
                        && other.keys().equals(provider.keys()));
    }

    @Override
    public void close() {
        if (owned != null) {
            owned.close();
        }
    }
}
