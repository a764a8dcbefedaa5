package dev.backstage.runtime.kafka;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.config.RuntimeConfig;
import dev.backstage.runtime.main.WorkerFromConfig;
import dev.backstage.runtime.spi.BacklogReport;
import dev.backstage.runtime.spi.BrokerTls;
import dev.backstage.runtime.spi.DeclaredObject;
import dev.backstage.runtime.spi.OutgoingJob;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderHealth;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import dev.backstage.runtime.spi.StartPosition;
import dev.backstage.runtime.spi.Subscription;
import dev.backstage.runtime.spi.TopologyRequest;
import dev.backstage.testsupport.SecureKafka;
import dev.backstage.testsupport.TestCertificates;
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
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Kafka over SASL_SSL (SCRAM-SHA-512) and over mutual TLS, on an in-process broker of this class's own with the
 * standard authorizer and exactly the worker ACLs the README documents ({@link SecureKafka#workerAcls}); delays and
 * dedupe from a TLS Redis with the worker ACL user. Each certificate or credential problem reports its own reason.
 */
@Tag("broker")
class KafkaTlsTest {
    static final String PREFIX = "ktls";
    static final String GROUP = "ktls-workers";
    static final String PASSWORD = "scram-" + Long.toHexString(System.nanoTime());
    static final String REDIS_PASSWORD = "redis-" + Long.toHexString(System.nanoTime());

    static TestCertificates certificates;
    static SecureKafka kafka;
    static TlsRedis redis;

    @BeforeAll
    static void start() {
        certificates = TestCertificates.generate();
        kafka = SecureKafka.start(certificates);
        kafka.addScramUser("worker", PASSWORD);
        kafka.allow(SecureKafka.workerAcls("User:worker", PREFIX, GROUP));
        kafka.allow(SecureKafka.workerAcls("User:CN=backstage-worker", PREFIX, GROUP));
        redis = TlsRedis.start(certificates, "server", List.of(TlsRedis.workerAcl("worker", REDIS_PASSWORD, PREFIX)));
    }

    @AfterAll
    static void stop() {
        if (redis != null) {
            redis.close();
        }
        if (kafka != null) {
            kafka.close();
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

    static String saslUrl(String listener, String password) {
        return "kafka://worker:" + password + "@" + kafka.address(listener);
    }

    @Test
    void givenSaslSslWithTheWorkerAcls_thenJobsDelaysDedupeAndTopicsWork() throws Exception {
        Map<String, String> env = Map.of(
                "BACKSTAGE_PROVIDER_URL",
                saslUrl(SecureKafka.SASL_SSL, PASSWORD),
                "BACKSTAGE_DELAYS_URL",
                redis.url("localhost", "worker", REDIS_PASSWORD),
                "BACKSTAGE_DEDUPE_URL",
                redis.url("localhost", "worker", REDIS_PASSWORD));
        Map<String, String> redisTls = tls(certificates.ca(), false);
        RuntimeConfig config = new RuntimeConfig(
                new RuntimeConfig.Connection("kafka", null, null, PREFIX, GROUP, tls(certificates.ca(), false)),
                new RuntimeConfig.Connection("redis", null, null, PREFIX, null, redisTls),
                new RuntimeConfig.Connection("redis", null, null, PREFIX, null, redisTls),
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
                    Subscription.group("news", "audit").from(StartPosition.EARLIEST),
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
            // The broker's own record: the jobs group committed past all three jobs.
            await().atMost(Duration.ofSeconds(30)).until(() -> committed(GROUP, PREFIX + ".default") == 3);
        }
    }

    static long committed(String group, String topic) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = kafka.admin()
                .listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS);
        OffsetAndMetadata offset = offsets.get(new TopicPartition(topic, 0));
        return offset == null ? -1 : offset.offset();
    }

    @Test
    void givenMutualTlsWithTheSameAcls_thenTheDeclarerAndBacklogProbeWork() {
        ProviderSettings settings = new ProviderSettings(
                "kafka", kafka.address(SecureKafka.MTLS), PREFIX, GROUP, tls(certificates.ca(), true));
        try (Provider provider = Providers.create(settings)) {
            TopologyRequest topology = new TopologyRequest(
                    List.of(TopologyRequest.QueueSpec.named("reports")), List.of("audit"), true, GROUP);
            List<DeclaredObject> declared = provider.declarer().declare(topology);
            assertTrue(declared.stream().noneMatch(o -> o.state() == DeclaredObject.State.FAILED), declared.toString());
            provider.jobs().publish(OutgoingJob.fresh("reports", "r", "{}", null));
            BacklogReport report = provider.backlogProbe().measure(List.of("reports"), GROUP);
            assertEquals(1, report.undelivered(), report.toString());
            assertTrue(provider.health().up(), provider.health().detail());
        }
    }

    @Test
    void givenAWrongPassword_thenTheFailureIsAuthenticationFailed() {
        String wrong = "not-" + PASSWORD;
        assertFailure(
                "AuthenticationFailed", saslUrl(SecureKafka.SASL_SSL, wrong), tls(certificates.ca(), false), wrong);
    }

    @Test
    void givenAServerCertificateFromAnotherCa_thenTheFailureIsTlsUntrusted() {
        assertFailure(
                "TLSUntrusted", saslUrl(SecureKafka.SASL_SSL, PASSWORD), tls(certificates.otherCa(), false), PASSWORD);
    }

    @Test
    void givenAServerCertificateForAnotherHost_thenTheFailureIsTlsHostnameMismatch() {
        assertFailure(
                "TLSHostnameMismatch",
                saslUrl(SecureKafka.WRONG_HOST, PASSWORD),
                tls(certificates.ca(), false),
                PASSWORD);
    }

    @Test
    void givenAnExpiredServerCertificate_thenTheFailureIsTlsCertificateExpired() {
        assertFailure(
                "TLSCertificateExpired",
                saslUrl(SecureKafka.EXPIRED, PASSWORD),
                tls(certificates.ca(), false),
                PASSWORD);
    }

    @Test
    void givenNoClientCertificateOnTheMutualTlsListener_thenTheFailureIsTlsClientCertificateRejected() {
        assertFailure(
                "TLSClientCertificateRejected",
                kafka.address(SecureKafka.MTLS),
                tls(certificates.ca(), false),
                "PRIVATE KEY");
    }

    /** The health detail (the worker's /readyz), the declarer's error and the probe's reason all say it. */
    static void assertFailure(String reason, String url, Map<String, String> options, String secret) {
        try (Provider provider = Providers.create(new ProviderSettings("kafka", url, PREFIX, GROUP, options))) {
            ProviderHealth health = provider.health();
            assertFalse(health.up());
            assertTrue(health.detail().startsWith(reason + ": "), health.detail());
            assertFalse(health.detail().contains("\n"), health.detail());
            assertFalse(health.detail().contains(secret), health.detail());
            // The declarer cannot even look at the topics: it throws, with the reason at the head.
            KafkaBrokerException declare = org.junit.jupiter.api.Assertions.assertThrows(
                    KafkaBrokerException.class,
                    () -> provider.declarer()
                            .declare(new TopologyRequest(
                                    List.of(TopologyRequest.QueueSpec.named("x")), List.of(), false, GROUP)));
            assertTrue(declare.getMessage().startsWith(reason + ": "), declare.getMessage());
            assertFalse(declare.getMessage().contains(secret), declare.getMessage());
            var probe = org.junit.jupiter.api.Assertions.assertThrows(
                    dev.backstage.runtime.spi.BacklogUnavailableException.class,
                    () -> provider.backlogProbe().measure(List.of("x"), GROUP));
            assertEquals(reason, probe.reason(), probe.getMessage());
            assertFalse(probe.getMessage().contains(secret), probe.getMessage());
        }
    }
}
