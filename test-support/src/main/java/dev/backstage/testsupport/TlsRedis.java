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
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@code redis-server} of its own for one test class: TLS only ({@code --port 0 --tls-port}), client certificates
 * optional, the {@code default} user switched off and the ACL users the test gives, no persistence, in a temp dir.
 * Started on free loopback ports, stopped by {@link #close()} (and at JVM exit). The shared Redis is never touched.
 */
public final class TlsRedis implements AutoCloseable {
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

    private final Process process;
    private final int port;
    private final Path dir;

    private TlsRedis(Process process, int port, Path dir) {
        this.process = process;
        this.port = port;
        this.dir = dir;
    }

    /**
     * @param certificateName which of {@code certificates}' server certificates to serve (server, wronghost, expired)
     * @param aclRules        ACL {@code user} lines without the leading {@code user}, e.g.
     *                        {@code worker on >secret ~app:* +@all}
     */
    public static TlsRedis start(TestCertificates certificates, String certificateName, List<String> aclRules) {
        return start(certificates, certificateName, aclRules, false);
    }

    /** @param requireClientCertificate {@code tls-auth-clients yes}: a client without a certificate is refused */
    public static TlsRedis start(
            TestCertificates certificates,
            String certificateName,
            List<String> aclRules,
            boolean requireClientCertificate) {
        try {
            Path dir = Files.createTempDirectory("tls-redis-");
            int port = freePort();
            List<String> config = new ArrayList<>(List.of(
                    "port 0",
                    "bind 127.0.0.1",
                    "tls-port " + port,
                    "tls-cert-file " + certificates.certificate(certificateName),
                    "tls-key-file " + certificates.key(certificateName),
                    "tls-ca-cert-file " + certificates.ca(),
                    "tls-auth-clients " + (requireClientCertificate ? "yes" : "optional"),
                    "save \"\"",
                    "appendonly no",
                    "dir " + dir,
                    "logfile " + dir.resolve("redis.log"),
                    "user default off"));
            for (String rule : aclRules) {
                config.add("user " + rule);
            }
            Path file = dir.resolve("redis.conf");
            Files.write(file, config, StandardCharsets.UTF_8);
            Process process = new ProcessBuilder("redis-server", file.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("stdout.log").toFile())
                    .start();
            TlsRedis redis = new TlsRedis(process, port, dir);
            Runtime.getRuntime().addShutdownHook(new Thread(redis::close, "tls-redis-stop"));
            redis.awaitReady();
            return redis;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The least privilege of a Backstage worker (and of the operator's declarer and probe) on Redis, as an ACL
     * {@code user} rule: keys and channels under {@code prefix:} only; streams, sorted sets (delays), hashes
     * (heartbeats), strings (dedupe, failure records), Lua scripts, and DEL/EXISTS/TYPE; no dangerous command.
     */
    public static String workerAcl(String user, String password, String prefix) {
        return user + " on >" + password + " resetkeys ~" + prefix + ":* resetchannels -@all"
                + " +@connection +@stream +@sortedset +@hash +@string +@scripting +del +exists +type -@dangerous";
    }

    public int port() {
        return port;
    }

    /** {@code rediss://user:password@host:port}. */
    public String url(String host, String user, String password) {
        return "rediss://" + user + ":" + password + "@" + host + ":" + port;
    }

    /** The server's log, for leak checks and failure messages. */
    public String log() {
        try {
            return Files.readString(dir.resolve("redis.log"), StandardCharsets.UTF_8)
                    + Files.readString(dir.resolve("stdout.log"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "redis-server with TLS exited with " + process.exitValue() + ": " + log());
            }
            if (log().contains("Ready to accept connections")) {
                return;
            }
            try {
                process.waitFor(50, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        close();
        throw new IllegalStateException("redis-server with TLS not ready within " + READY_TIMEOUT + ": " + log());
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
