package dev.backstage.runtime.redis;

import dev.backstage.runtime.spi.BacklogProbe;
import dev.backstage.runtime.spi.BroadcastCapability;
import dev.backstage.runtime.spi.ConnectionFailure;
import dev.backstage.runtime.spi.DeadLetterQueue;
import dev.backstage.runtime.spi.DedupeCapability;
import dev.backstage.runtime.spi.DelaysCapability;
import dev.backstage.runtime.spi.JobsCapability;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderHealth;
import dev.backstage.runtime.spi.TopicsCapability;
import dev.backstage.runtime.spi.TopologyDeclarer;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The Redis Streams provider (the default): jobs, delays, dedupe, topics and broadcast on one Redis, wire-compatible
 * with the seed TS/Go SDKs (docs/wire-format.md).
 *
 * <p>One connection carries every non-blocking command (lettuce pipelines them); it is the process's
 * {@link SharedRedisConnection} for this URL and TLS material, shared with every other provider on the same broker
 * and credentials. Each consumer opens its own connection for the blocking XREADGROUP so a block never delays an ack.
 */
public final class RedisProvider implements Provider {
    private final RedisSettings settings;
    private final RedisKeys keys;
    private final SharedRedisConnection shared;
    private final RedisLink connection;
    private final RedisJobs jobs;
    private final RedisDelays delays;
    private final RedisDedupe dedupe;
    private final RedisTopics topics;
    private final RedisBroadcast broadcast;
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

    private RedisProvider(RedisSettings settings) {
        this.settings = settings;
        this.keys = RedisKeys.of(settings.prefix(), settings.mode());
        try {
            this.shared = SharedRedisConnection.acquire(settings);
        } catch (RuntimeException e) {
            String label = ConnectionFailure.label(e);
            if (label.isEmpty()) {
                throw e;
            }
            // One line that says what to fix; the URL is redacted, the cause keeps lettuce's own detail.
            throw new RedisConnectionException(label + "redis at " + settings.redactedUri() + ": " + cause(e), e);
        }
        this.connection = shared.connection();
        this.jobs = new RedisJobs(this);
        this.delays = new RedisDelays(this, null);
        this.dedupe = new RedisDedupe(this, null);
        this.topics = new RedisTopics(this);
        this.broadcast = new RedisBroadcast(this);
    }

    public static RedisProvider connect(String uri) {
        return connect(RedisSettings.of(uri));
    }

    public static RedisProvider connect(RedisSettings settings) {
        return new RedisProvider(settings);
    }

    RedisSettings settings() {
        return settings;
    }

    RedisKeys keys() {
        return keys;
    }

    RedisClusterCommands<String, String> sync() {
        return open().sync();
    }

    RedisClusterAsyncCommands<String, String> async() {
        return open().async();
    }

    /** The connection, unless this provider is closed: other providers may still share it, this one may not use it. */
    private RedisLink open() {
        if (closed.get()) {
            throw new IllegalStateException("this redis provider is closed");
        }
        return connection;
    }

    /**
     * With {@link ReplicaWait} on, blocks until the writes made so far to {@code key}'s node are on the asked number
     * of replicas; fewer within the timeout is an error, so the caller does not report the write done.
     */
    void awaitReplicas(String key) {
        ReplicaWait wait = settings.replicaWait();
        if (wait.on()) {
            check(key, open().waitForReplicas(key, wait), wait);
        }
    }

    /** {@link #awaitReplicas} for a settlement that completes asynchronously. */
    java.util.concurrent.CompletionStage<Void> awaitReplicasAsync(String key) {
        ReplicaWait wait = settings.replicaWait();
        if (!wait.on()) {
            return java.util.concurrent.CompletableFuture.completedFuture(null);
        }
        return open().waitForReplicasAsync(key, wait).thenAccept(acked -> check(key, acked, wait));
    }

    private static void check(String key, Long acked, ReplicaWait wait) {
        if (acked == null || acked < wait.replicas()) {
            throw new ReplicaWait.ReplicaWaitException("redis write to " + key + " reached " + acked + " of "
                    + wait.replicas() + " replicas within " + wait.timeout().toMillis() + " ms: a failover now could"
                    + " lose it; it is retried (or lower waitReplicas, raise waitTimeoutMs)");
        }
    }

    /** How long a command may take before it fails (the connection's timeout, as the sync API uses). */
    java.time.Duration commandTimeout() {
        return connection.timeout();
    }

    /** A fresh connection for a blocking loop; the caller closes it. */
    RedisLink dedicatedConnection() {
        open();
        return shared.dedicatedConnection();
    }

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public JobsCapability jobs() {
        return jobs;
    }

    @Override
    public Optional<DelaysCapability> delays() {
        return Optional.of(delays);
    }

    @Override
    public Optional<DedupeCapability> dedupe() {
        return Optional.of(dedupe);
    }

    @Override
    public Optional<TopicsCapability> topics() {
        return Optional.of(topics);
    }

    @Override
    public Optional<BroadcastCapability> broadcast() {
        return Optional.of(broadcast);
    }

    @Override
    public TopologyDeclarer declarer() {
        return new RedisDeclarer(this);
    }

    @Override
    public BacklogProbe backlogProbe() {
        return new RedisBacklogProbe(this);
    }

    @Override
    public DeadLetterQueue deadLetters() {
        return new RedisDeadLetters(this);
    }

    @Override
    public ProviderHealth health() {
        try {
            String pong = async().ping().get(2, TimeUnit.SECONDS);
            return "PONG".equals(pong) ? ProviderHealth.ok() : ProviderHealth.down("unexpected PING reply " + pong);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ProviderHealth.down("redis at " + settings.redactedUri() + ": health check interrupted");
        } catch (java.util.concurrent.TimeoutException e) {
            Throwable reconnect = shared.reconnectFailure();
            if (reconnect != null) {
                return ProviderHealth.down(ConnectionFailure.label(reconnect) + "redis at " + settings.redactedUri()
                        + " cannot reconnect: " + cause(reconnect));
            }
            return ProviderHealth.down("redis at " + settings.redactedUri() + " did not answer PING within 2 s");
        } catch (Exception e) {
            return ProviderHealth.down(
                    ConnectionFailure.label(e) + "redis at " + settings.redactedUri() + " unreachable: " + cause(e));
        }
    }

    /** The innermost cause's type and message: a future's wrapper says nothing a person can act on. */
    static String cause(Throwable e) {
        Throwable root = e;
        while ((root instanceof java.util.concurrent.ExecutionException
                        || root instanceof java.util.concurrent.CompletionException)
                && root.getCause() != null) {
            root = root.getCause();
        }
        String message = root.getMessage();
        String name = root.getClass().getSimpleName();
        Throwable under = root.getCause();
        String detail = message == null || message.isBlank() ? name : name + ": " + message;
        return under != null && under.getMessage() != null && !detail.contains(under.getMessage())
                ? detail + " (" + under.getClass().getSimpleName() + ": " + under.getMessage() + ")"
                : detail;
    }

    @Override
    public void close() {
        // The connection is closed with its last user; closing twice must not take another provider's share.
        if (closed.compareAndSet(false, true)) {
            shared.release();
        }
    }
}
