package dev.backstage.runtime.main;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.backstage.runtime.spi.ProviderHealth;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * {@code /healthz} (the process is alive and the worker has not failed), {@code /readyz} (the worker is
 * running and its broker answers) and Prometheus {@code /metrics}, on one port.
 */
public final class HealthServer implements AutoCloseable {
    private final HttpServer server;

    public HealthServer(int port, BooleanSupplier alive, BooleanSupplier running, Supplier<ProviderHealth> broker,
            PrometheusMeterRegistry registry) throws IOException {
        server = HttpServer.create(new InetSocketAddress(port), 0);
        server.setExecutor(Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "backstage-health-http");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/healthz", ex -> respond(ex, alive.getAsBoolean() ? 200 : 503,
                alive.getAsBoolean() ? "ok\n" : "worker failed\n", "text/plain"));
        server.createContext("/readyz", ex -> {
            if (!running.getAsBoolean()) {
                respond(ex, 503, "worker not running\n", "text/plain");
                return;
            }
            ProviderHealth health = broker.get();
            respond(ex, health.up() ? 200 : 503, health.up() ? "ready\n" : "broker down: " + health.detail() + "\n",
                    "text/plain");
        });
        server.createContext("/metrics", ex -> respond(ex, 200, registry.scrape(),
                "text/plain; version=0.0.4; charset=utf-8"));
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static void respond(HttpExchange exchange, int status, String body, String type) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
