package dev.backstage.runtime.main;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * {@code /healthz}, {@code /readyz} and Prometheus {@code /metrics} on one port, for the runtime and the
 * operator alike: each probe answers 200 with "ok" or 503 with the reason its check gives.
 */
public final class ProbeServer implements AutoCloseable {
    /** A probe's answer: healthy, or not with a reason a person can read. */
    public record Check(boolean healthy, String reason) {
        public static Check ok() {
            return new Check(true, "ok");
        }

        public static Check failing(String reason) {
            return new Check(false, reason);
        }
    }

    private final HttpServer server;
    private final ExecutorService executor;

    public ProbeServer(
            int port, String threadName, Supplier<Check> liveness, Supplier<Check> readiness, Supplier<String> metrics)
            throws IOException {
        server = HttpServer.create(new InetSocketAddress(port), 16);
        // Two threads: a slow scrape must not block a probe.
        executor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/healthz", ex -> answer(ex, liveness.get()));
        server.createContext("/readyz", ex -> answer(ex, readiness.get()));
        server.createContext(
                "/metrics", ex -> respond(ex, 200, metrics.get(), "text/plain; version=0.0.4; charset=utf-8"));
    }

    public ProbeServer start() {
        server.start();
        return this;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static void answer(HttpExchange exchange, Check check) throws IOException {
        respond(exchange, check.healthy() ? 200 : 503, check.reason() + "\n", "text/plain");
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
        executor.shutdownNow();
    }
}
