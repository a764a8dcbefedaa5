package dev.backstage.runtime.redis;

import dev.backstage.runtime.spi.BacklogProbe;
import dev.backstage.runtime.spi.BroadcastCapability;
import dev.backstage.runtime.spi.DeadLetterQueue;
import dev.backstage.runtime.spi.DedupeCapability;
import dev.backstage.runtime.spi.DelaysCapability;
import dev.backstage.runtime.spi.JobsCapability;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderHealth;
import dev.backstage.runtime.spi.TopicsCapability;
import dev.backstage.runtime.spi.TopologyDeclarer;
import dev.backstage.runtime.spi.BrokerTls;
import dev.backstage.runtime.spi.ConnectionFailure;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.SslOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The Redis Streams provider (the default): jobs, delays, dedupe, topics and broadcast on one Redis, wire-compatible
 * with the seed TS/Go SDKs (WIRE.md §8).
 *
 * <p>One shared connection carries every non-blocking command (lettuce pipelines them); each consumer
 * opens its own connection for the blocking XREADGROUP so a block never delays an ack.
 */
public final class RedisProvider implements Provider {
    private final RedisSettings settings;
    private final RedisKeys keys;
    private final ClientResources resources;
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisJobs jobs;
    private final RedisDelays delays;
    private final RedisDedupe dedupe;
    private final RedisTopics topics;
    /** Why lettuce's last reconnect attempt failed, until a connection is active again (for {@link #health()}). */
    private volatile Throwable reconnectFailure;
    private final reactor.core.Disposable reconnectEvents;
    private final RedisBroadcast broadcast;

    private RedisProvider(RedisSettings settings) {
        this.settings = settings;
        this.keys = new RedisKeys(settings.prefix());
        RedisURI uri = RedisURI.create(settings.uri());
        uri.setTimeout(Duration.ofSeconds(10));
        this.resources = RedisClientResources.create();
        this.client = RedisClient.create(resources, uri);
        ClientOptions.Builder options = ClientOptions.builder().autoReconnect(true);
        if (settings.tls() != null) {
            options.sslOptions(sslOptions(settings.tls()));
        }
        client.setOptions(options.build());
        // A reconnect that fails (a rotated password, a certificate the CA bundle no longer trusts) is only visible
        // in lettuce's events: commands just wait. Keep the cause, so /readyz says what is wrong.
        this.reconnectEvents = client.getResources().eventBus().get().subscribe(event -> {
            if (event instanceof io.lettuce.core.event.connection.ReconnectFailedEvent failed) {
                reconnectFailure = failed.getCause();
            } else if (event instanceof io.lettuce.core.event.connection.ConnectionActivatedEvent) {
                reconnectFailure = null;
            }
        });
        try {
            this.connection = client.connect();
        } catch (RuntimeException e) {
            // A client that never connected still holds event-loop threads: release them, or every failed
            // attempt (the operator retries each poll while a broker is down) leaks a thread pool.
            reconnectEvents.dispose();
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            resources.shutdown(0, 2, TimeUnit.SECONDS);
            String label = ConnectionFailure.label(e);
            if (label.isEmpty()) {
                throw e;
            }
            // One line that says what to fix; the URL is redacted, the cause keeps lettuce's own detail.
            throw new RedisConnectionException(label + "redis at " + settings.redactedUri() + ": " + cause(e), e);
        }
        this.jobs = new RedisJobs(this);
        this.delays = new RedisDelays(this, null);
        this.dedupe = new RedisDedupe(this, null);
        this.topics = new RedisTopics(this);
        this.broadcast = new RedisBroadcast(this);
    }

    /**
     * The CA bundle and client certificate, read when lettuce builds each connection's TLS context: lettuce keeps
     * the factories, so a rotation reaches new connections of a new provider (the operator makes one per retry).
     */
    private static SslOptions sslOptions(BrokerTls tls) {
        SslOptions.Builder ssl = SslOptions.builder().jdkSslProvider().trustManager(tls.trustManagers());
        if (tls.hasClientCertificate()) {
            ssl.keyManager(tls.keyManagers());
        }
        return ssl.build();
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

    RedisCommands<String, String> sync() {
        return connection.sync();
    }

    RedisAsyncCommands<String, String> async() {
        return connection.async();
    }

    /** A fresh connection for a blocking loop; the caller closes it. */
    StatefulRedisConnection<String, String> dedicatedConnection() {
        return client.connect();
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
            String pong = connection.async().ping().get(2, TimeUnit.SECONDS);
            return "PONG".equals(pong) ? ProviderHealth.ok() : ProviderHealth.down("unexpected PING reply " + pong);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ProviderHealth.down("redis at " + settings.redactedUri() + ": health check interrupted");
        } catch (java.util.concurrent.TimeoutException e) {
            Throwable reconnect = reconnectFailure;
            if (reconnect != null) {
                return ProviderHealth.down(ConnectionFailure.label(reconnect) + "redis at " + settings.redactedUri()
                        + " cannot reconnect: " + cause(reconnect));
            }
            return ProviderHealth.down("redis at " + settings.redactedUri() + " did not answer PING within 2 s");
        } catch (Exception e) {
            return ProviderHealth.down(ConnectionFailure.label(e) + "redis at " + settings.redactedUri() + " unreachable: "
                    + cause(e));
        }
    }

    /** The innermost cause's type and message: a future's wrapper says nothing a person can act on. */
    static String cause(Throwable e) {
        Throwable root = e;
        while ((root instanceof java.util.concurrent.ExecutionException
                || root instanceof java.util.concurrent.CompletionException) && root.getCause() != null) {
            root = root.getCause();
        }
        String message = root.getMessage();
        String name = root.getClass().getSimpleName();
        Throwable under = root.getCause();
        String detail = message == null || message.isBlank() ? name : name + ": " + message;
        return under != null && under.getMessage() != null && !detail.contains(under.getMessage())
                ? detail + " (" + under.getClass().getSimpleName() + ": " + under.getMessage() + ")" : detail;
    }

    @Override
    public void close() {
        reconnectEvents.dispose();
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
