package dev.backstage.operator.console;

import dev.backstage.operator.broker.ConnectionSecrets;
import dev.backstage.operator.broker.ProbeProviders;
import dev.backstage.operator.events.EventRecorder;
import dev.backstage.runtime.spi.Providers;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;

/** The console assembled: cache and history sampler, broker connections, access checks, HTTP server. */
public final class Console implements AutoCloseable {
    private final ConsoleCache cache;
    private final ProbeProviders brokers;
    private final ConsoleServer server;

    /**
     * @param namespaces the operator's watched namespaces; empty = all
     * @param events     the operator's Event recorder (actions are recorded with it)
     */
    public Console(
            KubernetesClient client,
            ConsoleSettings settings,
            Set<String> namespaces,
            EventRecorder events,
            Clock clock)
            throws IOException {
        this.cache = new ConsoleCache(client, namespaces, clock, settings.sampleInterval(), settings.historySamples());
        this.brokers = new ProbeProviders(
                new ConnectionSecrets(client, clock, Duration.ofSeconds(30)),
                Providers::create,
                clock,
                Duration.ofSeconds(30),
                Duration.ofSeconds(5));
        ConsoleAccess access = new ConsoleAccess(client);
        ConsoleRoutes routes = new ConsoleRoutes(
                cache, access, new ConsoleActions(client, brokers, events), clock, settings.historySeconds());
        try {
            this.server = new ConsoleServer(
                    new InetSocketAddress(settings.port()),
                    access,
                    new Sessions(clock, settings.sessionLifetime()),
                    routes);
        } catch (IOException e) {
            cache.close();
            brokers.close();
            throw new IOException(
                    "the console cannot listen on port " + settings.port() + " (" + e.getMessage()
                            + "); set BACKSTAGE_CONSOLE_PORT (chart: console.port) to a free port",
                    e);
        }
    }

    public void start() {
        server.start();
    }

    public int port() {
        return server.port();
    }

    /** The pools' histories, for tests and benchmarks. */
    public ConsoleCache cache() {
        return cache;
    }

    @Override
    public void close() {
        server.close();
        cache.close();
        brokers.close();
    }
}
