package dev.backstage.runtime.redis;

import dev.backstage.runtime.spi.BrokerTls;
import dev.backstage.runtime.spi.ConfigurationException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import io.lettuce.core.event.connection.ReconnectFailedEvent;
import io.lettuce.core.resource.ClientResources;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * The process's non-blocking Redis connection to one broker, shared by every {@link RedisProvider} that reaches it
 * with the same URL (host, port, database, user and password) and the same TLS material, and closed when the last of
 * them is. lettuce connections are thread-safe and pipeline the commands of all their users, so providers need not
 * have one each: the operator opens a provider per topology for declaring and another for backlog probes, and at a
 * thousand topologies on one Redis that was two thousand connections, each with its buffers and TLS session.
 *
 * <p>Only non-blocking commands go over it. A blocking read (XREADGROUP BLOCK) holds its connection for the whole
 * block, so consumers take a {@link #dedicatedConnection() connection of their own} from the shared client.
 *
 * <p>The key holds the URL as given (a changed password is a different key, so it gets a connection of its own and
 * an old user keeps its old credentials) and a digest of the TLS files' content (a rotated certificate is a new
 * key; the old connection's reconnects read the files again, as before).
 *
 * <p>Connecting happens outside the registry's lock; providers asking for a key being connected wait for that
 * attempt and get its connection or its error, so a broker that is down costs one attempt, not one per provider.
 */
final class SharedRedisConnection {
    private static final Map<String, SharedRedisConnection> REGISTRY = new HashMap<>();
    static final Duration TOPOLOGY_REFRESH = Duration.ofSeconds(5);

    private final String key;
    private final CompletableFuture<Void> connected = new CompletableFuture<>();
    /** Guarded by {@link #REGISTRY}. */
    private int users;

    private ClientResources resources;
    private AbstractRedisClient client;
    private RedisLink connection;
    private reactor.core.Disposable reconnectEvents;
    /** Why lettuce's last reconnect attempt failed, until a connection is active again (for health). */
    private volatile Throwable reconnectFailure;

    private SharedRedisConnection(String key) {
        this.key = key;
    }

    /**
     * The connection for {@code settings}, connecting if no provider holds one; {@link #release()} it once.
     *
     * @throws RuntimeException lettuce's exception when connecting fails (the caller says what to fix)
     */
    static SharedRedisConnection acquire(RedisSettings settings) {
        String key = key(settings);
        SharedRedisConnection shared;
        boolean connector;
        synchronized (REGISTRY) {
            shared = REGISTRY.get(key);
            connector = shared == null;
            if (connector) {
                shared = new SharedRedisConnection(key);
                REGISTRY.put(key, shared);
            }
            shared.users++;
        }
        if (connector) {
            shared.connect(settings);
        }
        try {
            shared.connected.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
        return shared;
    }

    /** How many connections the process shares now (for tests). */
    static int open() {
        synchronized (REGISTRY) {
            return REGISTRY.size();
        }
    }

    RedisLink connection() {
        return connection;
    }

    /** A fresh connection for a blocking loop, from the shared client; the caller closes it. */
    RedisLink dedicatedConnection() {
        return client instanceof RedisClusterClient cluster
                ? RedisLink.of(cluster.connect())
                : RedisLink.of(((RedisClient) client).connect());
    }

    Throwable reconnectFailure() {
        return reconnectFailure;
    }

    /** One user is done; the last one closes the connection and the client. */
    void release() {
        synchronized (REGISTRY) {
            if (--users > 0) {
                return;
            }
            REGISTRY.remove(key, this);
        }
        shutdown();
    }

    private void connect(RedisSettings settings) {
        try {
            List<RedisURI> uris = RedisEndpoints.of(settings.uri(), settings.mode());
            uris.forEach(uri -> uri.setTimeout(Duration.ofSeconds(10)));
            resources = RedisClientResources.create();
            SslOptions ssl = settings.tls() == null ? null : sslOptions(settings.tls());
            if (settings.mode() == RedisMode.CLUSTER) {
                RedisClusterClient cluster = RedisClusterClient.create(resources, uris);
                client = cluster;
                cluster.setOptions(clusterOptions(ssl));
            } else {
                // Standalone, or Sentinel: lettuce asks the sentinels for the primary at every (re)connect.
                RedisClient single = RedisClient.create(resources, uris.get(0));
                client = single;
                ClientOptions.Builder options = ClientOptions.builder().autoReconnect(true);
                if (ssl != null) {
                    options.sslOptions(ssl);
                }
                single.setOptions(options.build());
            }
            // A reconnect that fails (a rotated password, a certificate the CA bundle no longer trusts) is only
            // visible in lettuce's events: commands just wait. Keep the cause, so /readyz says what is wrong.
            reconnectEvents = resources.eventBus().get().subscribe(event -> {
                if (event instanceof ReconnectFailedEvent failed) {
                    reconnectFailure = failed.getCause();
                } else if (event instanceof ConnectionActivatedEvent) {
                    reconnectFailure = null;
                }
            });
            connection = dedicatedConnection();
            connected.complete(null);
        } catch (RuntimeException | Error e) {
            // Nobody may use this attempt any more: the next acquire connects afresh; the waiters get this error. A
            // client that never connected still holds its resources: release them, or every failed attempt (the
            // operator retries while a broker is down) would leak them.
            synchronized (REGISTRY) {
                REGISTRY.remove(key, this);
            }
            try {
                shutdown();
            } finally {
                connected.completeExceptionally(e);
            }
        }
    }

    private void shutdown() {
        if (reconnectEvents != null) {
            reconnectEvents.dispose();
        }
        if (connection != null) {
            connection.close();
        }
        if (client != null) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        if (resources != null) {
            resources.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    /**
     * A cluster client follows the cluster's changes: the topology is read again every {@link #TOPOLOGY_REFRESH}
     * and at once on a MOVED/ASK redirect, a persistent reconnect or an uncovered slot (a failover), so a promoted
     * replica takes the writes as soon as the cluster agrees on it.
     */
    private static ClusterClientOptions clusterOptions(SslOptions ssl) {
        ClusterClientOptions.Builder options = ClusterClientOptions.builder()
                .autoReconnect(true)
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enablePeriodicRefresh(TOPOLOGY_REFRESH)
                        .enableAllAdaptiveRefreshTriggers()
                        .adaptiveRefreshTriggersTimeout(Duration.ofMillis(500))
                        .refreshTriggersReconnectAttempts(2)
                        .build());
        if (ssl != null) {
            options.sslOptions(ssl);
        }
        return options.build();
    }

    /**
     * The CA bundle and client certificate, read when lettuce builds each connection's TLS context: lettuce keeps
     * the factories, so a reconnect after a rotation reads the new files.
     */
    private static SslOptions sslOptions(BrokerTls tls) {
        SslOptions.Builder ssl = SslOptions.builder().jdkSslProvider().trustManager(tls.trustManagers());
        if (tls.hasClientCertificate()) {
            ssl.keyManager(tls.keyManagers());
        }
        return ssl.build();
    }

    /** The URL and, with TLS, the files' paths and a digest of their content. */
    private static String key(RedisSettings settings) {
        BrokerTls tls = settings.tls();
        if (tls == null) {
            return settings.mode() + " " + settings.uri();
        }
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            StringBuilder key = new StringBuilder(settings.mode() + " " + settings.uri());
            for (Path file : new Path[] {tls.caFile(), tls.certFile(), tls.keyFile()}) {
                key.append('\n').append(file);
                if (file != null) {
                    sha.update(Files.readAllBytes(file));
                }
                sha.update((byte) 0);
            }
            return key.append('\n')
                    .append(HexFormat.of().formatHex(sha.digest()))
                    .toString();
        } catch (IOException e) {
            throw new ConfigurationException(
                    "TLS file cannot be read: " + e.getMessage() + "; mount it or fix the path", e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
