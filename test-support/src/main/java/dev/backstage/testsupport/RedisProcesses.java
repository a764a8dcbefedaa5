package dev.backstage.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The {@code redis-server} processes of one private Redis group ({@link PrivateRedisCluster},
 * {@link PrivateRedisSentinel}): each node a child process of this JVM on its own loopback port, its config and log
 * in a directory of its own under one temp directory. A node can be killed with SIGKILL and started again from the
 * same directory (a cluster node keeps its {@code nodes.conf}, so it rejoins). Everything stops on {@link #close()}
 * and at JVM exit; the shared brokers of {@code bin/lib.sh} are never touched.
 */
final class RedisProcesses implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final Path root;
    private final Map<Integer, Process> nodes = new LinkedHashMap<>();
    private final Map<Integer, List<String>> commands = new LinkedHashMap<>();

    RedisProcesses(String name) {
        try {
            root = Files.createTempDirectory(name + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(this::close, name + "-stop"));
    }

    /**
     * Starts a node on {@code port} with {@code config} (lines of a redis.conf; port, bind, dir and logfile are
     * added) and waits until it answers PING. {@code sentinel} starts it with {@code --sentinel}.
     */
    synchronized void start(int port, List<String> config, boolean sentinel) {
        Path dir = root.resolve(String.valueOf(port));
        List<String> lines = new ArrayList<>(
                List.of("port " + port, "bind 127.0.0.1", "dir " + dir, "logfile " + dir.resolve("redis.log")));
        lines.addAll(config);
        try {
            Files.createDirectories(dir);
            Path file = dir.resolve(sentinel ? "sentinel.conf" : "redis.conf");
            Files.write(file, lines, StandardCharsets.UTF_8);
            List<String> command = new ArrayList<>(List.of("redis-server", file.toString()));
            if (sentinel) {
                command.add("--sentinel");
            }
            commands.put(port, command);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        launch(port);
    }

    /** Starts the node on {@code port} again from its directory (after {@link #kill9}); waits until it answers. */
    synchronized void restart(int port) {
        if (nodes.get(port) != null && nodes.get(port).isAlive()) {
            return;
        }
        launch(port);
    }

    private void launch(int port) {
        try {
            Process process = new ProcessBuilder(commands.get(port))
                    .redirectErrorStream(true)
                    .redirectOutput(root.resolve(port + "/stdout.log").toFile())
                    .start();
            nodes.put(port, process);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "starting redis-server on 127.0.0.1:" + port + " failed (is redis-server"
                            + " on PATH? apt-get install redis-server redis-sentinel)",
                    e);
        }
        await(
                "redis-server on 127.0.0.1:" + port + " answers PING",
                START_TIMEOUT,
                () -> cli(port, "PING").equals("PONG"));
    }

    /** SIGKILL to the node on {@code port}: no shutdown, no last write to its replicas. Returns once it is gone. */
    synchronized void kill9(int port) {
        Process process = nodes.get(port);
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** {@code redis-cli -p port args…}, its output stripped; empty when the node does not answer. */
    String cli(int port, String... args) {
        List<String> command = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", String.valueOf(port)));
        command.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "";
            }
            return p.exitValue() == 0 && !out.startsWith("Could not connect")
                    ? out.replace("\r", "").strip()
                    : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Polls {@code condition} every 100 ms until it holds; fails naming {@code what} and where the logs are. */
    void await(String what, Duration timeout, BooleanSupplier condition) {
        try {
            Awaitility.await(what)
                    .atMost(timeout)
                    .pollInterval(Duration.ofMillis(100))
                    .until(condition::getAsBoolean);
        } catch (ConditionTimeoutException e) {
            throw new IllegalStateException(
                    "not within " + timeout.toSeconds() + " s: " + what + "; logs under " + root);
        }
    }

    /**
     * {@code count} free loopback ports below 55,535 whose port + 10,000 is free too (a cluster node's bus port).
     */
    static List<Integer> freePorts(int count) {
        List<Integer> ports = new ArrayList<>();
        while (ports.size() < count) {
            int port = TlsRedis.freePort();
            if (port < 55_535 && !ports.contains(port) && !ports.contains(port + 10_000) && free(port + 10_000)) {
                ports.add(port);
            }
        }
        return ports;
    }

    private static boolean free(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public synchronized void close() {
        for (Process process : nodes.values()) {
            process.destroyForcibly();
        }
        for (Process process : nodes.values()) {
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        nodes.clear();
        if (Files.exists(root)) {
            try (Stream<Path> files = Files.walk(root)) {
                files.sorted(Comparator.reverseOrder())
                        .forEach(path -> path.toFile().delete());
            } catch (IOException e) {
                // a temp directory left behind is harmless
            }
        }
    }
}
