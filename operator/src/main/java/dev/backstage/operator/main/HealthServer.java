package dev.backstage.operator.main;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.javaoperatorsdk.operator.RuntimeInfo;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's /healthz (process up and operator started), /readyz (every informer connected and
 * synced) and /metrics (Prometheus text) on one port.
 */
public final class HealthServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HealthServer.class);

    private final HttpServer server;
    private final ExecutorService executor;

    public HealthServer(int port, Supplier<RuntimeInfo> runtime, PrometheusMeterRegistry registry) throws IOException {
        this.server = HttpServer.create(new InetSocketAddress(port), 16);
        // Two threads: a slow scrape must not block a probe.
        this.executor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "operator-http");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/healthz", exchange -> {
            RuntimeInfo info = runtime.get();
            boolean started = info != null && info.isStarted();
            respond(exchange, started ? 200 : 503, started ? "ok\n" : "operator not started\n", "text/plain");
        });
        server.createContext("/readyz", exchange -> {
            RuntimeInfo info = runtime.get();
            if (info == null || !info.isStarted()) {
                respond(exchange, 503, "operator not started\n", "text/plain");
            } else if (!info.allEventSourcesAreHealthy()) {
                respond(exchange, 503, "unhealthy event sources: " + info.unhealthyEventSources().keySet() + "\n",
                        "text/plain");
            } else {
                respond(exchange, 200, "ok\n", "text/plain");
            }
        });
        server.createContext("/metrics", exchange ->
                respond(exchange, 200, registry.scrape(), "text/plain; version=0.0.4; charset=utf-8"));
    }

    public void start() {
        server.start();
        LOG.info("serving /healthz, /readyz and /metrics on port {}", port());
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static void respond(HttpExchange exchange, int code, String body, String contentType) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(code, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
