package dev.backstage.operator.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.backstage.operator.model.ReadyReason;
import dev.backstage.operator.model.SecretKeyReference;
import dev.backstage.operator.model.TlsSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The operator's one Secret read path: readers within {@code maxAge} of a read share it, whoever they are (the
 * topology reconciler, the probes, other topologies naming the same Secret); a read Secret is read again after
 * {@code maxAge}, and an absent Secret or a failed read is never kept.
 */
class ConnectionSecretsTest {
    private static final Duration MAX_AGE = Duration.ofSeconds(30);

    /** A clock the test moves. */
    private static final class StepClock extends Clock {
        private volatile Instant now = Instant.parse("2026-01-01T00:00:00Z");

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }

    /** An API server's Secrets, counting GETs per namespace/name. */
    private static final class Store implements ConnectionSecrets.SecretReader {
        final Map<String, Secret> secrets = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> gets = new ConcurrentHashMap<>();
        volatile RuntimeException failure;

        void put(String namespace, String name, String version, Map<String, String> data) {
            Map<String, String> encoded = new java.util.HashMap<>();
            data.forEach(
                    (k, v) -> encoded.put(k, Base64.getEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8))));
            secrets.put(
                    namespace + "/" + name,
                    new SecretBuilder()
                            .withNewMetadata()
                            .withNamespace(namespace)
                            .withName(name)
                            .withResourceVersion(version)
                            .endMetadata()
                            .withData(encoded)
                            .build());
        }

        int gets(String namespace, String name) {
            AtomicInteger count = gets.get(namespace + "/" + name);
            return count == null ? 0 : count.get();
        }

        @Override
        public Secret read(String namespace, String name) {
            gets.computeIfAbsent(namespace + "/" + name, k -> new AtomicInteger())
                    .incrementAndGet();
            RuntimeException fail = failure;
            if (fail != null) {
                throw fail;
            }
            return secrets.get(namespace + "/" + name);
        }
    }

    private static SecretKeyReference ref(String name) {
        SecretKeyReference reference = new SecretKeyReference();
        reference.setSecretName(name);
        reference.setKey("url");
        return reference;
    }

    @Test
    void givenReadersSharingASecret_thenTheyCostOneGetPerMaxAge_andAChangeIsSeenAfterIt() throws Exception {
        Store store = new Store();
        store.put("ns", "redis", "1", Map.of("url", "redis://one:6379"));
        StepClock clock = new StepClock();
        ConnectionSecrets secrets = new ConnectionSecrets(store, clock, MAX_AGE);

        // A thousand topologies naming one Secret, each read by the reconciler and by the probes.
        for (int i = 0; i < 1000; i++) {
            assertEquals(
                    "redis://one:6379",
                    secrets.resolve("ns", "spec.connection", ref("redis")).url());
            assertEquals(
                    "1", secrets.resolve("ns", "spec.connection", ref("redis")).resourceVersion());
        }
        assertEquals(1, store.gets("ns", "redis"));

        // The Secret is edited; until maxAge has passed the kept read is used, then the new version is read.
        store.put("ns", "redis", "2", Map.of("url", "redis://two:6379"));
        clock.advance(MAX_AGE.minusSeconds(1));
        assertEquals("1", secrets.resolve("ns", "spec.connection", ref("redis")).resourceVersion());
        assertEquals(1, store.gets("ns", "redis"));
        clock.advance(Duration.ofSeconds(1));
        ConnectionSecrets.ResolvedSecret fresh = secrets.resolve("ns", "spec.connection", ref("redis"));
        assertEquals("redis://two:6379", fresh.url());
        assertEquals("2", fresh.resourceVersion());
        assertEquals(2, store.gets("ns", "redis"));
    }

    @Test
    void givenSecretsOfTwoNamesInTwoNamespaces_thenEachIsKeptByNamespaceAndName() throws Exception {
        Store store = new Store();
        store.put("a", "redis", "1", Map.of("url", "redis://a:6379"));
        store.put("b", "redis", "7", Map.of("url", "redis://b:6379"));
        store.put("a", "other", "3", Map.of("url", "redis://other:6379"));
        ConnectionSecrets secrets = new ConnectionSecrets(store, new StepClock(), MAX_AGE);
        for (int i = 0; i < 3; i++) {
            assertEquals(
                    "redis://a:6379",
                    secrets.resolve("a", "spec.connection", ref("redis")).url());
            assertEquals(
                    "redis://b:6379",
                    secrets.resolve("b", "spec.connection", ref("redis")).url());
            assertEquals(
                    "redis://other:6379",
                    secrets.resolve("a", "spec.connection", ref("other")).url());
        }
        assertEquals(1, store.gets("a", "redis"));
        assertEquals(1, store.gets("b", "redis"));
        assertEquals(1, store.gets("a", "other"));
    }

    @Test
    void givenAnAbsentSecret_whenReadAgain_thenOneCreatedAfterTheErrorIsSeenAtOnce() throws Exception {
        Store store = new Store();
        ConnectionSecrets secrets = new ConnectionSecrets(store, new StepClock(), MAX_AGE);
        TopologyProblem missing =
                assertThrows(TopologyProblem.class, () -> secrets.resolve("ns", "spec.connection", ref("late")));
        assertEquals(ReadyReason.SECRET_NOT_FOUND, missing.reason());
        store.put("ns", "late", "1", Map.of("url", "redis://late:6379"));
        assertEquals(
                "redis://late:6379",
                secrets.resolve("ns", "spec.connection", ref("late")).url());
        assertEquals(2, store.gets("ns", "late"));
    }

    @Test
    void givenAFailedGet_whenReadAgain_thenTheFailureIsNotKept() throws Exception {
        Store store = new Store();
        store.put("ns", "redis", "1", Map.of("url", "redis://one:6379"));
        store.failure = new IllegalStateException("API server unavailable");
        ConnectionSecrets secrets = new ConnectionSecrets(store, new StepClock(), MAX_AGE);
        assertThrows(IllegalStateException.class, () -> secrets.resolve("ns", "spec.connection", ref("redis")));
        store.failure = null;
        assertEquals(
                "redis://one:6379",
                secrets.resolve("ns", "spec.connection", ref("redis")).url());
        assertEquals(2, store.gets("ns", "redis"));
    }

    @Test
    void givenATlsSection_whenRead_thenItsClientCertificateSecretIsReadOnce() throws Exception {
        Store store = new Store();
        store.put("ns", "client", "4", Map.of("tls.crt", "CERT", "tls.key", "KEY"));
        store.put("ns", "ca", "5", Map.of("ca.crt", "CA"));
        ConnectionSecrets secrets = new ConnectionSecrets(store, new StepClock(), MAX_AGE);
        TlsSpec tls = new TlsSpec();
        dev.backstage.operator.model.CaBundleReference ca = new dev.backstage.operator.model.CaBundleReference();
        ca.setSecretName("ca");
        tls.setCaBundle(ca);
        tls.setClientCertificateSecret("client");
        ConnectionSecrets.TlsMaterial material = secrets.resolveTls("ns", "spec.tls", tls);
        assertEquals("CA", material.caBundle());
        assertEquals("CERT", material.certificate());
        assertEquals("KEY", material.key());
        assertEquals(1, store.gets("ns", "client"));
        assertEquals(1, store.gets("ns", "ca"));
    }

    @Test
    void givenConcurrentReadersOfOneSecret_thenTheyShareOneGet() throws Exception {
        CountDownLatch inGet = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Store store = new Store();
        store.put("ns", "redis", "1", Map.of("url", "redis://one:6379"));
        ConnectionSecrets.SecretReader slow = (namespace, name) -> {
            inGet.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return store.read(namespace, name);
        };
        ConnectionSecrets secrets = new ConnectionSecrets(slow, new StepClock(), MAX_AGE);
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<String>> results = new ArrayList<>();
            results.add(threads.submit(
                    () -> secrets.resolve("ns", "spec.connection", ref("redis")).url()));
            assertEquals(true, inGet.await(30, TimeUnit.SECONDS));
            for (int i = 0; i < 7; i++) {
                results.add(threads.submit(() ->
                        secrets.resolve("ns", "spec.connection", ref("redis")).url()));
            }
            release.countDown();
            for (Future<String> result : results) {
                assertEquals("redis://one:6379", result.get(30, TimeUnit.SECONDS));
            }
            assertEquals(1, store.gets("ns", "redis"));
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void givenTheUncachedView_whenRead_thenTheSecretIsAsItIsNow() throws Exception {
        Store store = new Store();
        store.put("ns", "redis", "1", Map.of("url", "redis://one:6379"));
        ConnectionSecrets secrets = new ConnectionSecrets(store, new StepClock(), MAX_AGE);
        assertEquals("1", secrets.resolve("ns", "spec.connection", ref("redis")).resourceVersion());
        store.put("ns", "redis", "2", Map.of("url", "redis://two:6379"));
        assertEquals(
                "redis://two:6379",
                secrets.uncached()
                        .resolve("ns", "spec.connection", ref("redis"))
                        .url());
        assertEquals(2, store.gets("ns", "redis"));
    }

    @Test
    void givenNoMaxAge_thenEveryReadIsAGet() throws Exception {
        Store store = new Store();
        store.put("ns", "redis", "1", Map.of("url", "redis://one:6379"));
        ConnectionSecrets secrets = new ConnectionSecrets(store, new StepClock(), Duration.ZERO);
        assertNotNull(secrets.resolve("ns", "spec.connection", ref("redis")));
        assertNotNull(secrets.resolve("ns", "spec.connection", ref("redis")));
        assertEquals(2, store.gets("ns", "redis"));
    }
}
