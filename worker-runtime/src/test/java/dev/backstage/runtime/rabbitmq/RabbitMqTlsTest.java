package dev.backstage.runtime.rabbitmq;

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
import dev.backstage.runtime.spi.BrokerTls;
import dev.backstage.runtime.spi.DeclaredObject;
import dev.backstage.runtime.spi.OutgoingJob;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import dev.backstage.runtime.spi.QueueBacklog;
import dev.backstage.runtime.spi.Subscription;
import dev.backstage.runtime.spi.TopologyRequest;
import dev.backstage.testsupport.TestCertificates;
import dev.backstage.testsupport.TlsRabbitMq;
import dev.backstage.testsupport.TlsRedis;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
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
 * RabbitMQ over {@code amqps://} with a user limited to one vhost and to the prefix's names (the permissions the
 * README documents), on a node of this class's own ({@link TlsRabbitMq}); the backlog probe reads the management API
 * over HTTPS with the same CA bundle and credentials. Dedupe comes from a TLS Redis with the worker ACL user.
 */
@Tag("broker")
class RabbitMqTlsTest {
    static final String PREFIX = "rtls";
    static final String VHOST = "apps";
    static final String PASSWORD = "amqp-" + Long.toHexString(System.nanoTime());
    static final String REDIS_PASSWORD = "redis-" + Long.toHexString(System.nanoTime());
    /** configure, write, read: the worker's and the operator's least privilege in the vhost. */
    static final String CONFIGURE = "^" + PREFIX + "\\..*";

    static final String WRITE = "^(" + PREFIX + "\\..*|amq\\.default)$";
    static final String READ = "^" + PREFIX + "\\..*";

    static TestCertificates certificates;
    static TlsRabbitMq rabbit;
    static TlsRedis redis;

    @BeforeAll
    static void start() {
        certificates = TestCertificates.generate();
        rabbit = TlsRabbitMq.start(certificates);
        System.out.println("TLS RabbitMQ node started in " + rabbit.startupMillis() + " ms");
        rabbit.addVhostUser(VHOST, "worker", PASSWORD, CONFIGURE, WRITE, READ);
        rabbit.addVhostUser(VHOST, "rotating", PASSWORD, CONFIGURE, WRITE, READ);
        redis = TlsRedis.start(certificates, "server", List.of(TlsRedis.workerAcl("worker", REDIS_PASSWORD, PREFIX)));
    }

    @AfterAll
    static void stop() {
        if (redis != null) {
            redis.close();
        }
        if (rabbit != null) {
            rabbit.close();
        }
    }

    static Map<String, String> tls(Path ca, boolean clientCertificate) {
        Map<String, String> options = new HashMap<>();
        options.put(BrokerTls.OPT_CA_FILE, ca.toString());
        if (clientCertificate) {
            options.put(
                    BrokerTls.OPT_CERT_FILE, certificates.certificate("client").toString());
            options.put(BrokerTls.OPT_KEY_FILE, certificates.key("client").toString());
        }
        return options;
    }

    static Map<String, String> withManagement(Map<String, String> options) {
        Map<String, String> out = new HashMap<>(options);
        out.put(RabbitMqSettings.OPTION_MANAGEMENT_URL, rabbit.managementUrl());
        return out;
    }

    @Test
    void givenAmqpsWithTheVhostUser_thenJobsDelaysDedupeAndTopicsWork() {
        Map<String, String> env = Map.of(
                "BACKSTAGE_PROVIDER_URL",
                rabbit.url("localhost", "worker", PASSWORD, VHOST),
                "BACKSTAGE_DEDUPE_URL",
                redis.url("localhost", "worker", REDIS_PASSWORD));
        RuntimeConfig config = new RuntimeConfig(
                new RuntimeConfig.Connection(
                        "rabbitmq", null, null, PREFIX, null, withManagement(tls(certificates.ca(), true))),
                null,
                new RuntimeConfig.Connection("redis", null, null, PREFIX, null, tls(certificates.ca(), false)),
                new RuntimeConfig.WorkerSection(List.of("default"), null, 4, null, null, null, null, null, null),
                null);
        WorkerFromConfig.Built built =
                new WorkerFromConfig(env::get).build(config, List.of(), new SimpleMeterRegistry());
        List<String> done = new CopyOnWriteArrayList<>();
        Set<String> news = ConcurrentHashMap.newKeySet();
        try (Worker worker = built.worker()) {
            worker.register("send", Map.class, (ctx, payload) -> {
                done.add(String.valueOf(payload.get("n")));
                return Next.done();
            });
            worker.subscribe(
                    Subscription.group("news", "audit"),
                    Map.class,
                    (ctx, payload) -> news.add(String.valueOf(payload.get("n"))));
            worker.start();
            worker.enqueue("send", Map.of("n", "now"));
            worker.schedule("send", Map.of("n", "later"), Duration.ofMillis(300));
            assertFalse(worker.enqueue(
                            "send",
                            Map.of("n", "once"),
                            EnqueueOptions.defaults().dedupe("k", Duration.ofMinutes(1)))
                    .deduplicated());
            assertTrue(worker.enqueue(
                            "send",
                            Map.of("n", "twice"),
                            EnqueueOptions.defaults().dedupe("k", Duration.ofMinutes(1)))
                    .deduplicated());
            worker.publish("news", Map.of("n", "n1"));
            await().atMost(Duration.ofSeconds(60)).until(() -> done.size() == 3 && news.contains("n1"));
            assertEquals(Set.of("now", "later", "once"), Set.copyOf(done));
            assertTrue(built.provider().health().up(), built.provider().health().detail());
            // The broker's own view: the worker's connections are TLS, from user worker, in vhost apps.
            // The management API lists a connection once its statistics were emitted (every few seconds): wait.
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                String connections = rabbit.get("/api/connections");
                return connections.contains("\"user\":\"worker\"")
                        && connections.contains("\"vhost\":\"" + VHOST + "\"")
                        && connections.contains("\"ssl\":true");
            });
        }
    }

    @Test
    void givenTlsAndTheManagementApiOverHttps_thenTheDeclarerAndTheBacklogProbeWork() {
        ProviderSettings settings = new ProviderSettings(
                "rabbitmq",
                rabbit.url("localhost", "worker", PASSWORD, VHOST),
                PREFIX,
                null,
                withManagement(tls(certificates.ca(), false)));
        try (Provider provider = Providers.create(settings)) {
            TopologyRequest topology = new TopologyRequest(
                    List.of(TopologyRequest.QueueSpec.named("reports")), List.of("audit"), true, "backstage-workers");
            List<DeclaredObject> declared = provider.declarer().declare(topology);
            assertTrue(declared.stream().noneMatch(o -> o.state() == DeclaredObject.State.FAILED), declared.toString());
            assertTrue(rabbit.get("/api/queues/" + VHOST + "/" + PREFIX + ".reports") != null);
            provider.jobs().publish(OutgoingJob.fresh("reports", "r", "{}", null));
            // The management API refreshes its figures every few seconds; until then the probe counts over AMQP.
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                QueueBacklog q = provider.backlogProbe()
                        .measure(List.of("reports"), "backstage-workers")
                        .queues()
                        .get(0);
                return q.undelivered() == 1 && q.note().contains("from the management API");
            });
        }
    }

    @Test
    void givenAWrongPassword_thenTheFailureIsAuthenticationFailed() {
        String wrong = "not-" + PASSWORD;
        assertFailure(
                "AuthenticationFailed",
                rabbit.url("localhost", "worker", wrong, VHOST),
                tls(certificates.ca(), false),
                wrong);
    }

    @Test
    void givenAServerCertificateFromAnotherCa_thenTheFailureIsTlsUntrusted() {
        assertFailure(
                "TLSUntrusted",
                rabbit.url("localhost", "worker", PASSWORD, VHOST),
                tls(certificates.otherCa(), false),
                PASSWORD);
    }

    @Test
    void givenAHostTheCertificateDoesNotName_thenTheFailureIsTlsHostnameMismatch() {
        assertFailure(
                "TLSHostnameMismatch",
                rabbit.url("127.0.0.2", "worker", PASSWORD, VHOST),
                tls(certificates.ca(), false),
                PASSWORD);
    }

    @Test
    void givenAManagementApiThatRefusesTheCredentials_thenTheProbesNoteSaysAuthenticationFailed() {
        String wrong = "not-" + PASSWORD;
        Map<String, String> options = tls(certificates.ca(), false);
        options.put(
                RabbitMqSettings.OPTION_MANAGEMENT_URL,
                "https://worker:" + wrong + "@localhost:"
                        + rabbit.managementUrl()
                                .substring(rabbit.managementUrl().lastIndexOf(':') + 1));
        ProviderSettings settings = new ProviderSettings(
                "rabbitmq", rabbit.url("localhost", "worker", PASSWORD, VHOST), PREFIX, null, options);
        try (Provider provider = Providers.create(settings)) {
            provider.declarer()
                    .declare(new TopologyRequest(
                            List.of(TopologyRequest.QueueSpec.named("mgmt")), List.of(), false, "backstage-workers"));
            QueueBacklog q = provider.backlogProbe()
                    .measure(List.of("mgmt"), "backstage-workers")
                    .queues()
                    .get(0);
            assertTrue(q.note().startsWith("AuthenticationFailed: "), q.note());
            assertFalse(q.note().contains(wrong), q.note());
        }
    }

    @Test
    void givenAPasswordRotatedUnderARunningProvider_thenItsHealthSaysAuthenticationFailed() {
        ProviderSettings settings = new ProviderSettings(
                "rabbitmq",
                rabbit.url("localhost", "rotating", PASSWORD, VHOST),
                PREFIX,
                null,
                tls(certificates.ca(), false));
        try (Provider provider = Providers.create(settings)) {
            assertTrue(provider.health().up(), provider.health().detail());
            rabbit.changePassword("rotating", "new-" + PASSWORD);
            await().atMost(Duration.ofSeconds(30)).until(() -> rabbit.closeConnectionsOf("rotating") > 0);
            String detail = await().atMost(Duration.ofSeconds(30))
                    .until(() -> provider.health().detail(), d -> d.startsWith("AuthenticationFailed: "));
            assertFalse(detail.contains(PASSWORD), detail);
            assertFalse(detail.contains("\n"), detail);
        }
    }

    @Test
    void givenAnExpiredServerCertificate_thenTheFailureIsTlsCertificateExpired() {
        rabbit.serve("expired");
        try {
            assertFailure(
                    "TLSCertificateExpired",
                    rabbit.url("localhost", "worker", PASSWORD, VHOST),
                    tls(certificates.ca(), false),
                    PASSWORD);
        } finally {
            rabbit.serve("server");
        }
    }

    static void assertFailure(String reason, String url, Map<String, String> options, String secret) {
        BrokerUnavailableException e = assertThrows(
                BrokerUnavailableException.class,
                () -> Providers.create(new ProviderSettings("rabbitmq", url, PREFIX, null, options))
                        .close());
        assertTrue(e.getMessage().startsWith(reason + ": "), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        for (Throwable t = e; t != null; t = t.getCause()) {
            assertFalse(String.valueOf(t.getMessage()).contains(secret), "secret in " + t);
        }
    }
}
