package dev.backstage.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A RabbitMQ node of one test class's own, beside the shared one: its own node name, distribution port, data and log
 * directories and Erlang cookie (in its own HOME), AMQP over TLS only on {@code 127.0.0.1} and {@code 127.0.0.2}
 * (the server certificate names only the first, so the second shows a host name mismatch), client certificates
 * optional, and the management API over HTTPS on 127.0.0.1. An {@code admin} user (random password) sets up vhosts,
 * users and permissions through the management API. Stopped by {@link #close()} and at JVM exit.
 *
 * <p>Kept as one class: the node's directories, certificates, configuration and management-API set-up are one recipe
 * for a TLS node, each step using the paths and credentials of the one before.
 */
public final class TlsRabbitMq implements AutoCloseable {
    private static final Duration READY_TIMEOUT = Duration.ofMinutes(3);

    private final Process process;
    private final Path dir;
    private final int amqpsPort;
    private final int managementPort;
    private final String adminPassword;
    private final HttpClient http;
    private volatile long startupMillis;
    private final TestCertificates certificates;
    private final String nodeName;

    private TlsRabbitMq(
            Process process,
            Path dir,
            int amqpsPort,
            int managementPort,
            String adminPassword,
            HttpClient http,
            TestCertificates certificates,
            String nodeName) {
        this.certificates = certificates;
        this.nodeName = nodeName;
        this.process = process;
        this.dir = dir;
        this.amqpsPort = amqpsPort;
        this.managementPort = managementPort;
        this.adminPassword = adminPassword;
        this.http = http;
    }

    public static TlsRabbitMq start(TestCertificates certificates) {
        long started = System.nanoTime();
        try {
            Path dir = Files.createTempDirectory("tls-rabbitmq-");
            int amqps = TlsRedis.freePort();
            int management = TlsRedis.freePort();
            int distribution = TlsRedis.freePort();
            String adminPassword = "admin-" + Long.toHexString(System.nanoTime());
            // The node serves copies, so a test can swap the certificate (serve) without touching the originals.
            copy(certificates, "server", dir);
            Files.write(
                    dir.resolve("rabbitmq.conf"),
                    List.of(
                            "listeners.tcp = none",
                            "listeners.ssl.local = 127.0.0.1:" + amqps,
                            "listeners.ssl.other = 127.0.0.2:" + amqps,
                            "ssl_options.cacertfile = " + certificates.ca(),
                            "ssl_options.certfile = " + dir.resolve("served.crt"),
                            "ssl_options.keyfile = " + dir.resolve("served.key"),
                            "ssl_options.verify = verify_peer",
                            "ssl_options.fail_if_no_peer_cert = false",
                            "management.ssl.port = " + management,
                            "management.ssl.ip = 127.0.0.1",
                            "management.ssl.cacertfile = " + certificates.ca(),
                            "management.ssl.certfile = " + certificates.certificate("server"),
                            "management.ssl.keyfile = " + certificates.key("server"),
                            "loopback_users = none",
                            "default_user = admin",
                            "default_pass = " + adminPassword),
                    StandardCharsets.UTF_8);
            Files.writeString(dir.resolve("enabled_plugins"), "[rabbitmq_management].\n");
            Path cookie = dir.resolve(".erlang.cookie");
            Files.writeString(
                    cookie, Long.toHexString(System.nanoTime()) + Long.toHexString(new java.util.Random().nextLong()));
            Files.setPosixFilePermissions(cookie, java.nio.file.attribute.PosixFilePermissions.fromString("r--------"));
            ProcessBuilder builder = new ProcessBuilder("/usr/lib/rabbitmq/bin/rabbitmq-server")
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("stdout.log").toFile())
                    .directory(dir.toFile());
            Map<String, String> env = builder.environment();
            env.put("HOME", dir.toString());
            String nodeName = "bstls" + ProcessHandle.current().pid() + "x" + amqps + "@localhost";
            env.put("RABBITMQ_NODENAME", nodeName);
            env.put("RABBITMQ_DIST_PORT", String.valueOf(distribution));
            env.put("RABBITMQ_MNESIA_BASE", dir.resolve("mnesia").toString());
            env.put("RABBITMQ_LOG_BASE", dir.resolve("log").toString());
            env.put("RABBITMQ_CONFIG_FILE", dir.resolve("rabbitmq").toString());
            env.put(
                    "RABBITMQ_ENABLED_PLUGINS_FILE",
                    dir.resolve("enabled_plugins").toString());
            env.put("RABBITMQ_PID_FILE", dir.resolve("rabbitmq.pid").toString());
            Process process = builder.start();
            HttpClient http = HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .sslContext(certificates.trustingCa())
                    .connectTimeout(Duration.ofSeconds(2))
                    .build();
            TlsRabbitMq rabbit =
                    new TlsRabbitMq(process, dir, amqps, management, adminPassword, http, certificates, nodeName);
            Runtime.getRuntime().addShutdownHook(new Thread(rabbit::close, "tls-rabbitmq-stop"));
            rabbit.awaitReady();
            rabbit.startupMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            return rabbit;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void copy(TestCertificates certificates, String name, Path dir) throws IOException {
        Files.copy(
                certificates.certificate(name),
                dir.resolve("served.crt"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.copy(
                certificates.key(name), dir.resolve("served.key"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * Makes the AMQPS listener serve another of the run's certificates (server, wronghost, expired) to new
     * connections: the files change and the node's TLS PEM cache is cleared ({@code ssl:clear_pem_cache()}).
     */
    public void serve(String certificateName) {
        try {
            copy(certificates, certificateName, dir);
            ProcessBuilder ctl = new ProcessBuilder(
                            "/usr/lib/rabbitmq/bin/rabbitmqctl", "-n", nodeName, "eval", "ssl:clear_pem_cache().")
                    .redirectErrorStream(true);
            ctl.environment().put("HOME", dir.toString());
            Process process = ctl.start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException("rabbitmqctl eval ssl:clear_pem_cache() failed: " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** How long the node took to start and answer (for the report: this is the class's fixed cost). */
    public long startupMillis() {
        return startupMillis;
    }

    public int amqpsPort() {
        return amqpsPort;
    }

    /** {@code amqps://user:password@host:port/vhost}. */
    public String url(String host, String user, String password, String vhost) {
        return "amqps://" + user + ":" + password + "@" + host + ":" + amqpsPort + "/" + encode(vhost);
    }

    /** {@code https://localhost:port}, the management API root. */
    public String managementUrl() {
        return "https://localhost:" + managementPort;
    }

    /**
     * A vhost, and a user (management tag only: the API refuses users without one) whose configure, write and read
     * permissions on it are the given regular expressions.
     */
    public void addVhostUser(String vhost, String user, String password, String configure, String write, String read) {
        call("PUT", "/api/vhosts/" + encode(vhost), "{}");
        call("PUT", "/api/users/" + encode(user), "{\"password\":\"" + json(password) + "\",\"tags\":\"management\"}");
        call(
                "PUT",
                "/api/permissions/" + encode(vhost) + "/" + encode(user),
                "{\"configure\":\"" + json(configure) + "\",\"write\":\"" + json(write) + "\",\"read\":\"" + json(read)
                        + "\"}");
    }

    /** Changes a user's password (its open connections keep working until closed). */
    public void changePassword(String user, String password) {
        call("PUT", "/api/users/" + encode(user), "{\"password\":\"" + json(password) + "\",\"tags\":\"management\"}");
    }

    /**
     * Closes every connection of {@code user} the management API lists, as an administrator does after a rotation;
     * how many. A new connection appears in the list only after the broker's next statistics round.
     */
    public int closeConnectionsOf(String user) {
        int closed = 0;
        String body = call("GET", "/api/connections?columns=name,user", null);
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("\\{[^{}]*\\}").matcher(body);
        while (m.find()) {
            String connection = m.group();
            if (connection.contains("\"user\":\"" + user + "\"")) {
                java.util.regex.Matcher name =
                        java.util.regex.Pattern.compile("\"name\":\"([^\"]*)\"").matcher(connection);
                if (name.find()) {
                    call("DELETE", "/api/connections/" + encode(name.group(1)), null);
                    closed++;
                }
            }
        }
        return closed;
    }

    /** A management API GET as admin, for asserting on the broker's own state; the body, or null for 404. */
    public String get(String path) {
        return call("GET", path, null);
    }

    /** The node's own logs, for leak checks. */
    public String logs() {
        StringBuilder out = new StringBuilder();
        try (var files = Files.walk(dir)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".log")).toList()) {
                out.append(Files.readString(file, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    private String call(String method, String path, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(managementUrl() + path))
                .timeout(Duration.ofSeconds(10))
                .header(
                        "Authorization",
                        "Basic "
                                + Base64.getEncoder()
                                        .encodeToString(("admin:" + adminPassword).getBytes(StandardCharsets.UTF_8)))
                .header("Content-Type", "application/json");
        request.method(
                method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() == 404 && method.equals("GET")) {
                return null;
            }
            if (response.statusCode() >= 300) {
                throw new IllegalStateException(
                        method + " " + path + " answered " + response.statusCode() + ": " + response.body());
            }
            return response.body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        RuntimeException last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "the TLS RabbitMQ node exited with " + process.exitValue() + ": " + tail(logs()));
            }
            try {
                call("GET", "/api/overview", null);
                return;
            } catch (RuntimeException e) {
                last = e;
            }
            try {
                process.waitFor(500, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        close();
        throw new IllegalStateException(
                "the TLS RabbitMQ node did not answer within " + READY_TIMEOUT + ": " + last + "; " + tail(logs()));
    }

    private static String tail(String text) {
        return text.length() > 3000 ? text.substring(text.length() - 3000) : text;
    }

    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy(); // the start script traps TERM and stops the node
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // The Erlang VM is the script's child: if it outlived the script, end it by its pid (ours only).
        try {
            Path pid = dir.resolve("rabbitmq.pid");
            if (Files.exists(pid)) {
                ProcessHandle.of(Long.parseLong(Files.readString(pid).trim()))
                        .ifPresent(ProcessHandle::destroyForcibly);
            }
        } catch (IOException | NumberFormatException e) {
            // nothing more to do
        }
    }

    private static String encode(String segment) {
        return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static String json(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
