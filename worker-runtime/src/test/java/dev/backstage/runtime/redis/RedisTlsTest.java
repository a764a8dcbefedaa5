package dev.backstage.runtime.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.config.RuntimeConfig;
import dev.backstage.runtime.main.WorkerFromConfig;
import dev.backstage.runtime.spi.BacklogReport;
import dev.backstage.runtime.spi.BrokerTls;
import dev.backstage.runtime.spi.DeclaredObject;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import dev.backstage.runtime.spi.StartPosition;
import dev.backstage.runtime.spi.Subscription;
import dev.backstage.runtime.spi.TopologyRequest;
import dev.backstage.testsupport.TestCertificates;
import dev.backstage.testsupport.TlsRedis;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Redis over TLS with an ACL user, on a {@code redis-server} of this class's own ({@link TlsRedis}) with certificates
 * made for this run: the worker (built from runtime config + environment, as the container main does), the declarer
 * and the backlog probe work with exactly the ACL rules the README documents; each certificate or credential problem
 * fails with its own reason at the head of a one-line message that holds no secret.
 */
@Tag("broker")
class RedisTlsTest {
    static final String PREFIX = "tls18";
    static final String PASSWORD = "w0rker-" + Long.toHexString(System.nanoTime());
    /** The worker's (and the operator's) least privilege, as README-PROPOSED-18.md documents it. */
    static final String WORKER_ACL = TlsRedis.workerAcl("worker", PASSWORD, PREFIX);

    static TestCertificates certificates;
    static TlsRedis good;
    static TlsRedis wrongHost;
    static TlsRedis expired;
    static TlsRedis mutual;
    static RedisClient admin;
    static StatefulRedisConnection<String, String> adminConnection;

    @BeforeAll
    static void start() {
        certificates = TestCertificates.generate();
        List<String> users = List.of(
                WORKER_ACL,
                TlsRedis.workerAcl("rotating", PASSWORD, PREFIX),
                TlsRedis.workerAcl("sharing", PASSWORD, PREFIX),
                "admin on >admin-" + PASSWORD + " ~* &* +@all");
        good = TlsRedis.start(certificates, "server", users);
        wrongHost = TlsRedis.start(certificates, "wronghost", users);
        expired = TlsRedis.start(certificates, "expired", users);
        mutual = TlsRedis.start(certificates, "server", users, true);
        RedisURI uri = RedisURI.create(good.url("localhost", "admin", "admin-" + PASSWORD));
        admin = RedisClient.create(uri);
        admin.setOptions(ClientOptions.builder()
                .sslOptions(SslOptions.builder()
                        .jdkSslProvider()
                        .trustManager(certificates.ca().toFile())
                        .build())
                .build());
        adminConnection = admin.connect();
    }

    @AfterAll
    static void stop() {
        if (adminConnection != null) {
            adminConnection.close();
            admin.shutdown();
        }
        for (TlsRedis redis : new TlsRedis[] {good, wrongHost, expired, mutual}) {
            if (redis != null) {
                redis.close();
            }
        }
    }

    static RedisCommands<String, String> brokerState() {
        return adminConnection.sync();
    }

    static Map<String, String> tls(boolean clientCertificate, java.nio.file.Path ca) {
        Map<String, String> options = new HashMap<>();
        options.put(BrokerTls.OPT_CA_FILE, ca.toString());
        if (clientCertificate) {
            options.put(
                    BrokerTls.OPT_CERT_FILE, certificates.certificate("client").toString());
            options.put(BrokerTls.OPT_KEY_FILE, certificates.key("client").toString());
        }
        return options;
    }

    @Test
    void givenTlsWithTheWorkerAclUser_thenJobsDelaysDedupeTopicsDeclarerAndProbeWork() throws Exception {
        Map<String, String> env = Map.of("BACKSTAGE_PROVIDER_URL", good.url("localhost", "worker", PASSWORD));
        RuntimeConfig config = new RuntimeConfig(
                new RuntimeConfig.Connection("redis", null, null, PREFIX, null, tls(true, certificates.ca())),
                null,
                null,
                new RuntimeConfig.WorkerSection(List.of("default"), null, 4, null, null, null, null, null, null),
                null);
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        WorkerFromConfig.Built built = new WorkerFromConfig(env::get).build(config, List.of(), meters);
        Worker worker = built.worker();
        List<String> done = new CopyOnWriteArrayList<>();
        Set<String> news = ConcurrentHashMap.newKeySet();
        try (worker) {
            worker.register("send", Map.class, (ctx, payload) -> {
                done.add(String.valueOf(payload.get("n")));
                return Next.done();
            });
            worker.subscribe(
                    Subscription.fanOut("news").from(StartPosition.EARLIEST),
                    Map.class,
                    (ctx, payload) -> news.add(String.valueOf(payload.get("n"))));
            worker.start();
            assertTrue(built.provider().health().up(), built.provider().health().detail());

            worker.enqueue("send", Map.of("n", "now"));
            worker.schedule("send", Map.of("n", "later"), Duration.ofMillis(300));
            assertFalse(worker.enqueue(
                            "send",
                            Map.of("n", "once"),
                            EnqueueOptions.defaults().dedupe("k1", Duration.ofMinutes(1)))
                    .deduplicated());
            assertTrue(worker.enqueue(
                            "send",
                            Map.of("n", "twice"),
                            EnqueueOptions.defaults().dedupe("k1", Duration.ofMinutes(1)))
                    .deduplicated());
            worker.publish("news", Map.of("n", "n1"));

            await().atMost(Duration.ofSeconds(20)).until(() -> done.size() == 3 && news.contains("n1"));
            assertEquals(Set.of("now", "later", "once"), Set.copyOf(done));
            // The broker's own state: the stream holds what was processed, the dedupe key exists, nothing is pending.
            assertEquals(0, brokerState().zcard(PREFIX + ":scheduled"));
            assertEquals(1L, brokerState().exists(PREFIX + ":dedupe:k1"));
            // Acks are batched (flushed within a few ms): wait for the pending list to empty.
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> brokerState()
                                    .xpending(PREFIX + ":default", "backstage-workers")
                                    .getCount()
                            == 0L);
            // No metric name or label carries the password or the key.
            String ids =
                    meters.getMeters().stream().map(m -> m.getId().toString()).reduce("", String::concat);
            assertFalse(ids.isEmpty());
            assertFalse(ids.contains(PASSWORD) || ids.contains("PRIVATE KEY"), ids);
        }
    }

    @Test
    void givenTlsWithTheSameAclUser_thenTheOperatorsDeclarerAndBacklogProbeWork() {
        ProviderSettings settings = new ProviderSettings(
                "redis", good.url("127.0.0.1", "worker", PASSWORD), PREFIX, null, tls(false, certificates.ca()));
        try (var provider = Providers.create(settings)) {
            TopologyRequest topology = new TopologyRequest(
                    List.of(TopologyRequest.QueueSpec.named("reports")), List.of("audit"), true, "backstage-workers");
            List<DeclaredObject> declared = provider.declarer().declare(topology);
            assertTrue(declared.stream().noneMatch(o -> o.state() == DeclaredObject.State.FAILED), declared.toString());
            assertEquals(1L, brokerState().exists(PREFIX + ":reports"));
            provider.jobs().publish(dev.backstage.runtime.spi.OutgoingJob.fresh("reports", "r", "{}", null));
            BacklogReport report = provider.backlogProbe().measure(List.of("reports"), "backstage-workers");
            assertEquals(1, report.undelivered(), report.toString());
        }
    }

    @Test
    void givenProvidersWithTheSameCredentials_thenTheyShareAConnection_andAChangedPasswordGetsItsOwn() {
        RedisSettings first = RedisSettings.of(good.url("localhost", "sharing", PASSWORD))
                .withPrefix(PREFIX)
                .withTls(new BrokerTls(certificates.ca(), null, null));
        String second = "second-" + PASSWORD;
        // The user gets a second password, as during a rotation: both are valid at once.
        brokerState().aclSetuser("sharing", io.lettuce.core.AclSetuserArgs.Builder.addPassword(second));
        try (RedisProvider declaring = RedisProvider.connect(first);
                RedisProvider probing = RedisProvider.connect(first)) {
            assertEquals(1, connectionsOf("sharing"), brokerState().clientList());
            try (RedisProvider rotated =
                    RedisProvider.connect(RedisSettings.of(good.url("localhost", "sharing", second))
                            .withPrefix(PREFIX)
                            .withTls(new BrokerTls(certificates.ca(), null, null)))) {
                assertEquals(2, connectionsOf("sharing"), brokerState().clientList());
                assertTrue(rotated.health().up(), rotated.health().detail());
            }
            // The new password's connection closed with its only user; the old one still serves its two.
            await().atMost(Duration.ofSeconds(20)).until(() -> connectionsOf("sharing") == 1);
            assertTrue(declaring.health().up(), declaring.health().detail());
            assertTrue(probing.health().up(), probing.health().detail());
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> connectionsOf("sharing") == 0);
    }

    /** Connections the broker has for ACL user {@code user} (CLIENT LIST). */
    private static long connectionsOf(String user) {
        return brokerState()
                .clientList()
                .lines()
                .filter(line -> line.contains(" user=" + user + " "))
                .count();
    }

    @Test
    void givenAWrongPassword_thenTheFailureIsAuthenticationFailedInOneLineWithoutThePassword() {
        String wrong = "not-" + PASSWORD;
        RuntimeException e = assertThrows(
                RuntimeException.class,
                () -> RedisProvider.connect(RedisSettings.of(good.url("localhost", "worker", wrong))
                        .withTls(new BrokerTls(certificates.ca(), null, null))));
        assertReason("AuthenticationFailed", e, wrong);
    }

    @Test
    void givenAServerCertificateFromAnotherCa_thenTheFailureIsTlsUntrusted() {
        RuntimeException e = assertThrows(
                RuntimeException.class,
                () -> RedisProvider.connect(RedisSettings.of(good.url("localhost", "worker", PASSWORD))
                        .withTls(new BrokerTls(certificates.otherCa(), null, null))));
        assertReason("TLSUntrusted", e, PASSWORD);
    }

    @Test
    void givenAServerCertificateForAnotherHost_thenTheFailureIsTlsHostnameMismatch() {
        RuntimeException e = assertThrows(
                RuntimeException.class,
                () -> RedisProvider.connect(RedisSettings.of(wrongHost.url("localhost", "worker", PASSWORD))
                        .withTls(new BrokerTls(certificates.ca(), null, null))));
        assertReason("TLSHostnameMismatch", e, PASSWORD);
    }

    @Test
    void givenAnExpiredServerCertificate_thenTheFailureIsTlsCertificateExpired() {
        RuntimeException e = assertThrows(
                RuntimeException.class,
                () -> RedisProvider.connect(RedisSettings.of(expired.url("localhost", "worker", PASSWORD))
                        .withTls(new BrokerTls(certificates.ca(), null, null))));
        assertReason("TLSCertificateExpired", e, PASSWORD);
    }

    @Test
    void givenAServerThatRequiresClientCertificates_thenItTakesOurs_andRefusesNoneWithTlsClientCertificateRejected() {
        try (RedisProvider provider =
                RedisProvider.connect(RedisSettings.of(mutual.url("localhost", "worker", PASSWORD))
                        .withPrefix(PREFIX)
                        .withTls(new BrokerTls(
                                certificates.ca(), certificates.certificate("client"), certificates.key("client"))))) {
            assertTrue(provider.health().up(), provider.health().detail());
        }
        RuntimeException e = assertThrows(
                RuntimeException.class,
                () -> RedisProvider.connect(RedisSettings.of(mutual.url("localhost", "worker", PASSWORD))
                        .withTls(new BrokerTls(certificates.ca(), null, null))));
        assertReason("TLSClientCertificateRejected", e, PASSWORD);
    }

    @Test
    void givenAPasswordRotatedUnderARunningWorker_thenReadyzSaysAuthenticationFailed() throws Exception {
        RedisProvider provider = RedisProvider.connect(RedisSettings.of(good.url("localhost", "rotating", PASSWORD))
                .withPrefix(PREFIX)
                .withTls(new BrokerTls(certificates.ca(), null, null)));
        try (provider;
                dev.backstage.runtime.main.HealthServer health = new dev.backstage.runtime.main.HealthServer(
                        0,
                        java.util.Optional::empty,
                        () -> true,
                        provider::health,
                        new io.micrometer.prometheusmetrics.PrometheusMeterRegistry(
                                io.micrometer.prometheusmetrics.PrometheusConfig.DEFAULT))) {
            java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
            java.net.URI readyz = java.net.URI.create("http://127.0.0.1:" + health.port() + "/readyz");
            assertEquals(
                    200,
                    http.send(
                                    java.net.http.HttpRequest.newBuilder(readyz).build(),
                                    java.net.http.HttpResponse.BodyHandlers.ofString())
                            .statusCode());
            // The password changes on the broker and the worker's connections are dropped: lettuce reconnects with
            // the old one, which the broker refuses.
            brokerState()
                    .aclSetuser(
                            "rotating",
                            io.lettuce.core.AclSetuserArgs.Builder.resetpass().addPassword("new-" + PASSWORD));
            brokerState().clientKill(io.lettuce.core.KillArgs.Builder.user("rotating"));
            String body = await().atMost(Duration.ofSeconds(30))
                    .until(
                            () -> {
                                var response = http.send(
                                        java.net.http.HttpRequest.newBuilder(readyz)
                                                .build(),
                                        java.net.http.HttpResponse.BodyHandlers.ofString());
                                return response.statusCode() == 503 ? response.body() : "";
                            },
                            text -> text.startsWith("broker down: AuthenticationFailed: "));
            assertEquals(1, body.strip().lines().count(), body);
            assertFalse(body.contains(PASSWORD), body);
        } finally {
            brokerState()
                    .aclSetuser(
                            "rotating",
                            io.lettuce.core.AclSetuserArgs.Builder.resetpass().addPassword(PASSWORD));
        }
    }

    @Test
    void givenAnUntrustedCa_whenTheContainerMainStarts_thenItExitsWithOneLineThatSaysWhatIsWrong() throws Exception {
        java.nio.file.Path config = java.nio.file.Files.createTempFile("runtime-tls", ".yaml");
        java.nio.file.Files.writeString(config, """
                provider:
                  name: redis
                  prefix: %s
                  options:
                    tlsCaFile: %s
                """.formatted(PREFIX, certificates.otherCa()));
        String javaBin = java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java")
                .toString();
        ProcessBuilder builder = new ProcessBuilder(
                        javaBin,
                        "-cp",
                        System.getProperty("java.class.path"),
                        dev.backstage.runtime.main.RuntimeMain.class.getName(),
                        config.toString())
                .redirectErrorStream(true);
        builder.environment().put("BACKSTAGE_PROVIDER_URL", good.url("localhost", "worker", PASSWORD));
        builder.environment().put("BACKSTAGE_HTTP_PORT", "0");
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(1, process.exitValue(), output);
        List<String> errors = output.lines().filter(l -> l.contains("ERROR")).toList();
        assertEquals(1, errors.size(), output);
        assertTrue(
                errors.get(0).contains("worker cannot start: ")
                        && errors.get(0).contains("TLSUntrusted: redis at rediss://***@localhost:"),
                output);
        assertFalse(output.contains(PASSWORD), output);
        assertFalse(output.contains("\tat "), "no stack trace: " + output);
    }

    @Test
    void givenTheCliTlsFlags_thenItEnqueuesAndInspectsOverTls() {
        long before = brokerState().xlen(PREFIX + ":cli");
        int exit = dev.backstage.runtime.cli.BackstageCli.execute(
                "enqueue",
                "send",
                "{}",
                "--queue",
                "cli",
                "--provider",
                "redis",
                "--url",
                good.url("localhost", "worker", PASSWORD),
                "--prefix",
                PREFIX,
                "--tls-ca-file",
                certificates.ca().toString(),
                "--tls-cert-file",
                certificates.certificate("client").toString(),
                "--tls-key-file",
                certificates.key("client").toString());
        assertEquals(0, exit);
        assertEquals(before + 1, brokerState().xlen(PREFIX + ":cli"));
    }

    static void assertReason(String reason, Throwable e, String secret) {
        String message = e.getMessage();
        assertTrue(message.startsWith(reason + ": "), message);
        assertFalse(message.contains("\n"), message);
        for (Throwable t = e; t != null; t = t.getCause()) {
            assertFalse(String.valueOf(t.getMessage()).contains(secret), "secret in " + t);
        }
    }
}
