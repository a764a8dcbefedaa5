package dev.backstage.e2e.node;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.function.BiFunction;
import java.util.function.BiPredicate;

/**
 * The kubelet's log endpoint, so {@code kubectl logs} works on this node: the API server proxies
 * {@code GET /containerLogs/NS/POD/CONTAINER} to the port the Node advertises ({@code daemonEndpoints}) over HTTPS,
 * {@link KubeletServer} relays it here, and this answers with the pod's {@code pod.log} ({@code tailLines} and
 * {@code follow} as the kubelet reads them; a followed log ends when the pod's container is gone). Plain HTTP on
 * loopback only: the TLS is the kubelet port's.
 */
final class PodLogServer implements AutoCloseable {
    private static final String PREFIX = "/containerLogs/";
    private static final Duration FOLLOW_POLL = Duration.ofMillis(250);

    private final HttpServer server;
    private final BiFunction<String, String, Path> podDir;
    private final BiPredicate<String, String> running;

    /**
     * @param podDir  namespace, pod → the pod's directory (with {@code pod.log})
     * @param running namespace, pod → whether this node still runs its container (a followed log ends after)
     */
    PodLogServer(BiFunction<String, String, Path> podDir, BiPredicate<String, String> running) throws IOException {
        this.podDir = podDir;
        this.running = running;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.setExecutor(Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "node-agent-logs");
            t.setDaemon(true);
            return t;
        }));
        server.createContext(PREFIX, this::serve);
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    private void serve(HttpExchange exchange) throws IOException {
        try (exchange) {
            String[] parts = exchange.getRequestURI()
                    .getPath()
                    .substring(PREFIX.length())
                    .split("/");
            if (!"GET".equals(exchange.getRequestMethod()) || parts.length < 2) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            Path log = podDir.apply(parts[0], parts[1]).resolve("pod.log");
            if (!Files.exists(log)) {
                byte[] body = ("no log for pod " + parts[0] + "/" + parts[1] + " on this node\n")
                        .getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(404, body.length);
                exchange.getResponseBody().write(body);
                return;
            }
            Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
            exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            exchange.sendResponseHeaders(200, 0);
            OutputStream out = exchange.getResponseBody();
            long position = writeTail(log, query.get("tailLines"), out);
            if ("true".equals(query.get("follow"))) {
                follow(log, position, out, parts[0], parts[1]);
            }
        }
    }

    /** Writes the whole log, or its last {@code tailLines} lines; returns where it stopped. */
    private static long writeTail(Path log, String tailLines, OutputStream out) throws IOException {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        long size = Files.size(log);
        int tail = tailLines == null ? lines.size() : Math.max(0, Integer.parseInt(tailLines));
        Deque<String> last = new ArrayDeque<>(lines.subList(Math.max(0, lines.size() - tail), lines.size()));
        for (String line : last) {
            out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        }
        out.flush();
        return size;
    }

    /** Streams what the container appends until it is gone or the client hangs up. */
    private void follow(Path log, long from, OutputStream out, String namespace, String pod) throws IOException {
        long position = from;
        byte[] buffer = new byte[8192];
        while (running.test(namespace, pod)) {
            try (RandomAccessFile file = new RandomAccessFile(log.toFile(), "r")) {
                file.seek(position);
                for (int n = file.read(buffer); n > 0; n = file.read(buffer)) {
                    out.write(buffer, 0, n);
                    position += n;
                }
            }
            out.flush();
            try {
                Thread.sleep(FOLLOW_POLL.toMillis()); // tailing a growing file: the next read's pace
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> query = new HashMap<>();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                int eq = pair.indexOf('=');
                if (eq > 0) {
                    query.put(
                            URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
                }
            }
        }
        return query;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
