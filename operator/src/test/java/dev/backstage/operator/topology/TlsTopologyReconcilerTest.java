package dev.backstage.operator.topology;

import static dev.backstage.operator.topology.TopologyTestSupport.FAST;
import static dev.backstage.operator.topology.TopologyTestSupport.WAIT;
import static dev.backstage.operator.topology.TopologyTestSupport.awaitEvent;
import static dev.backstage.operator.topology.TopologyTestSupport.awaitReady;
import static dev.backstage.operator.topology.TopologyTestSupport.secret;
import static dev.backstage.operator.topology.TopologyTestSupport.topology;
import static dev.backstage.operator.topology.TopologyTestSupport.visibleText;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.CaBundleReference;
import dev.backstage.operator.model.Condition;
import dev.backstage.operator.model.ProviderType;
import dev.backstage.operator.model.ReadyReason;
import dev.backstage.operator.model.TlsSpec;
import dev.backstage.operator.testing.BackstageFixtures;
import dev.backstage.operator.testing.OperatorTestHarness;
import dev.backstage.operator.workload.PoolResources;
import dev.backstage.operator.workload.WorkerContainer;
import dev.backstage.testsupport.TestCertificates;
import dev.backstage.testsupport.TlsRedis;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.Meter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The operator with TLS Secrets, against Redis servers of this class's own started with TLS and an ACL user (the
 * worker's least privilege): the topology declares over rediss:// with the CA bundle Secret; a rotated CA Secret, a
 * wrong password, a certificate for another host and an expired certificate each show their own Ready reason and
 * recover without a restart; worker pods mount the Secrets read-only with mode 0400. Throughout, the password and the
 * client key's PEM appear in no log line, status, Event or metric label.
 */
@Tag("broker")
class TlsTopologyReconcilerTest {
    private static final String PASSWORD = "tls-op-" + Long.toHexString(System.nanoTime());
    private static final String PREFIX = UniqueNames.prefix("optls");
    private static TestCertificates certificates;
    private static TlsRedis good;
    private static TlsRedis wrongHost;
    private static TlsRedis expired;
    private static OperatorTestHarness harness;
    private static KubernetesClient client;
    private static final ByteArrayOutputStream logs = new ByteArrayOutputStream();
    private static PrintStream originalErr;
    private static PrintStream originalOut;

    @BeforeAll
    static void start() {
        // Everything the operator logs (slf4j-simple writes to System.err, looked up on each line) is kept for the
        // leak check, and still shown.
        originalErr = System.err;
        originalOut = System.out;
        System.setErr(new PrintStream(new Tee(originalErr, logs), true, StandardCharsets.UTF_8));
        System.setOut(new PrintStream(new Tee(originalOut, logs), true, StandardCharsets.UTF_8));
        certificates = TestCertificates.generate();
        List<String> users =
                List.of(TlsRedis.workerAcl("worker", PASSWORD, PREFIX), "admin on >admin-" + PASSWORD + " ~* +@all");
        good = TlsRedis.start(certificates, "server", users);
        wrongHost = TlsRedis.start(certificates, "wronghost", users);
        expired = TlsRedis.start(certificates, "expired", users);
        harness = OperatorTestHarness.startWithTopologies(FAST);
        client = harness.client();
    }

    @AfterAll
    static void stop() {
        if (harness != null) {
            harness.close();
        }
        if (adminClient != null) {
            adminClient.shutdown();
        }
        for (TlsRedis redis : new TlsRedis[] {good, wrongHost, expired}) {
            if (redis != null) {
                redis.close();
            }
        }
        System.setErr(originalErr);
        System.setOut(originalOut);
    }

    private static io.lettuce.core.RedisClient adminClient;

    /** The TLS Redis's own state, as its admin sees it. */
    private static io.lettuce.core.api.sync.RedisCommands<String, String> admin() {
        if (adminClient == null) {
            adminClient = io.lettuce.core.RedisClient.create(good.url("localhost", "admin", "admin-" + PASSWORD));
            adminClient.setOptions(io.lettuce.core.ClientOptions.builder()
                    .sslOptions(io.lettuce.core.SslOptions.builder()
                            .jdkSslProvider()
                            .trustManager(certificates.ca().toFile())
                            .build())
                    .build());
        }
        return adminClient.connect().sync();
    }

    private static void pemSecret(String namespace, String name, Map<String, Path> files) {
        Map<String, String> data = new java.util.TreeMap<>();
        files.forEach((key, file) -> {
            try {
                data.put(key, Base64.getEncoder().encodeToString(Files.readAllBytes(file)));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        Secret secret = new SecretBuilder()
                .withNewMetadata()
                .withNamespace(namespace)
                .withName(name)
                .endMetadata()
                .withData(data)
                .build();
        client.secrets().inNamespace(namespace).resource(secret).createOr(existing -> existing.update());
    }

    private static BackstageTopology tlsTopology(String ns, String urlSecret) {
        BackstageTopology topology = topology(ns, "orders", ProviderType.REDIS, PREFIX, urlSecret, "orders");
        topology.getSpec().setTls(new TlsSpec(new CaBundleReference("broker-ca", "ca.crt"), "worker-client"));
        return topology;
    }

    @Test
    void givenTlsTopologies_thenTheyDeclareOverTls_recoverFromEachCertificateAndCredentialProblem_andLeakNothing() {
        String ns = harness.newNamespace("tls");
        secret(client, ns, "redis-url", good.url("localhost", "worker", PASSWORD));
        pemSecret(ns, "broker-ca", Map.of("ca.crt", certificates.ca()));
        pemSecret(
                ns,
                "worker-client",
                Map.of("tls.crt", certificates.certificate("client"), "tls.key", certificates.key("client")));
        client.resource(tlsTopology(ns, "redis-url")).create();
        awaitReady(client, ns, "orders", ReadyReason.DECLARED);
        assertEquals("stream", admin().type(PREFIX + ":orders"), "the stream exists on the TLS Redis");

        // The CA Secret rotates to a CA that did not sign the server: the operator re-reads it on its next poll and
        // reconnects with it (no restart), which fails; rotating back recovers.
        pemSecret(ns, "broker-ca", Map.of("ca.crt", certificates.otherCa()));
        awaitReady(client, ns, "orders", ReadyReason.TLS_UNTRUSTED);
        pemSecret(ns, "broker-ca", Map.of("ca.crt", certificates.ca()));
        awaitReady(client, ns, "orders", ReadyReason.DECLARED);

        secret(client, ns, "redis-url", good.url("localhost", "worker", "not-" + PASSWORD));
        awaitReady(client, ns, "orders", ReadyReason.AUTHENTICATION_FAILED);
        secret(client, ns, "redis-url", wrongHost.url("localhost", "worker", PASSWORD));
        awaitReady(client, ns, "orders", ReadyReason.TLS_HOSTNAME_MISMATCH);
        secret(client, ns, "redis-url", expired.url("localhost", "worker", PASSWORD));
        Condition expiredCondition = awaitReady(client, ns, "orders", ReadyReason.TLS_CERTIFICATE_EXPIRED);
        assertFalse(expiredCondition.getMessage().contains("\n"), expiredCondition.getMessage());
        secret(client, ns, "redis-url", good.url("localhost", "worker", PASSWORD));
        awaitReady(client, ns, "orders", ReadyReason.DECLARED);

        // Worker pods: the Secrets are mounted read-only, files 0400, and runtime.yaml names the files.
        client.resource(BackstageFixtures.pool(ns, "workers", "orders", "orders"))
                .create();
        BackstageWorkerPool pool = client.resources(BackstageWorkerPool.class)
                .inNamespace(ns)
                .withName("workers")
                .get();
        Deployment deployment = await().atMost(WAIT)
                .until(
                        () -> client.apps()
                                .deployments()
                                .inNamespace(ns)
                                .withName(PoolResources.deploymentName(pool))
                                .get(),
                        d -> d != null);
        PodSpec pod = deployment.getSpec().getTemplate().getSpec();
        Volume volume = pod.getVolumes().stream()
                .filter(v -> v.getName().equals("tls-provider"))
                .findFirst()
                .orElseThrow();
        assertEquals(WorkerContainer.TLS_FILE_MODE, volume.getProjected().getDefaultMode());
        assertTrue(
                volume.getProjected().getSources().stream()
                        .flatMap(s -> s.getSecret().getItems().stream())
                        .allMatch(i -> i.getMode() == WorkerContainer.TLS_FILE_MODE),
                volume.toString());
        VolumeMount mount = pod.getContainers().get(0).getVolumeMounts().stream()
                .filter(m -> m.getName().equals("tls-provider"))
                .findFirst()
                .orElseThrow();
        assertTrue(mount.getReadOnly());
        assertEquals("/etc/backstage/tls/provider", mount.getMountPath());
        assertEquals(WorkerContainer.RUNTIME_GID, pod.getSecurityContext().getFsGroup());
        ConfigMap config = client.configMaps()
                .inNamespace(ns)
                .withName(PoolResources.configMapName(pool))
                .get();
        String runtimeYaml = config.getData().values().iterator().next();
        assertTrue(
                runtimeYaml.contains("tlsCaFile: \"/etc/backstage/tls/provider/ca.crt\"")
                        || runtimeYaml.contains("tlsCaFile: /etc/backstage/tls/provider/ca.crt"),
                runtimeYaml);
        assertTrue(runtimeYaml.contains("/etc/backstage/tls/provider/tls.key"), runtimeYaml);

        // The leak check: status, Events, the ConfigMap, the Deployment, metric names and labels, and the log.
        List<String> secrets = secretValues();
        awaitEvent(client, ns, "TopologyReady"); // the topology's last Event: every earlier one is written too
        StringBuilder outputs = new StringBuilder(visibleText(client, ns, "orders"));
        outputs.append(io.fabric8.kubernetes.client.utils.Serialization.asJson(deployment));
        outputs.append(io.fabric8.kubernetes.client.utils.Serialization.asJson(config));
        for (Meter meter : harness.meters().getMeters()) {
            outputs.append(meter.getId().toString()).append('\n');
        }
        outputs.append(logs.toString(StandardCharsets.UTF_8));
        for (String secret : secrets) {
            assertFalse(outputs.toString().contains(secret), "a secret value appears in the operator's outputs");
        }
        assertTrue(outputs.toString().contains(ReadyReason.TLS_UNTRUSTED), "the search covered the failure phase");
    }

    @Test
    void givenAKafkaTopologyOverSaslSslWithRedisDelaysOverTls_thenItDeclares_andReportsKafkasFailureReasons()
            throws Exception {
        String scram = "scram-" + Long.toHexString(System.nanoTime());
        try (dev.backstage.testsupport.SecureKafka kafka = dev.backstage.testsupport.SecureKafka.start(certificates)) {
            kafka.addScramUser("worker", scram);
            kafka.allow(dev.backstage.testsupport.SecureKafka.workerAcls("User:worker", PREFIX, "backstage-workers"));
            String ns = harness.newNamespace("kafkatls");
            secret(
                    client,
                    ns,
                    "kafka-url",
                    "kafka://worker:" + scram + "@" + kafka.address(dev.backstage.testsupport.SecureKafka.SASL_SSL));
            secret(client, ns, "redis-url", good.url("localhost", "worker", PASSWORD));
            pemSecret(ns, "broker-ca", Map.of("ca.crt", certificates.ca()));
            BackstageTopology topology = topology(ns, "orders", ProviderType.KAFKA, PREFIX, "kafka-url", "orders");
            topology.getSpec().setTls(new TlsSpec(new CaBundleReference("broker-ca", "ca.crt"), null));
            dev.backstage.operator.model.CapabilityBackend delays = new dev.backstage.operator.model.CapabilityBackend(
                    ProviderType.REDIS, new dev.backstage.operator.model.SecretKeyReference("redis-url", "url"), null);
            delays.setTls(new TlsSpec(new CaBundleReference("broker-ca", "ca.crt"), null));
            topology.getSpec().setCapabilities(new dev.backstage.operator.model.SuppliedCapabilities(delays, null));
            client.resource(topology).create();
            awaitReady(client, ns, "orders", ReadyReason.DECLARED);
            assertTrue(
                    kafka.admin()
                            .listTopics()
                            .names()
                            .get(30, java.util.concurrent.TimeUnit.SECONDS)
                            .contains(PREFIX + ".orders"),
                    "the jobs topic exists on the SASL_SSL broker");

            secret(
                    client,
                    ns,
                    "kafka-url",
                    "kafka://worker:not-" + scram + "@"
                            + kafka.address(dev.backstage.testsupport.SecureKafka.SASL_SSL));
            awaitReady(client, ns, "orders", ReadyReason.AUTHENTICATION_FAILED);
            secret(
                    client,
                    ns,
                    "kafka-url",
                    "kafka://worker:" + scram + "@" + kafka.address(dev.backstage.testsupport.SecureKafka.EXPIRED));
            awaitReady(client, ns, "orders", ReadyReason.TLS_CERTIFICATE_EXPIRED);
            pemSecret(ns, "broker-ca", Map.of("ca.crt", certificates.otherCa()));
            secret(
                    client,
                    ns,
                    "kafka-url",
                    "kafka://worker:" + scram + "@" + kafka.address(dev.backstage.testsupport.SecureKafka.SASL_SSL));
            awaitReady(client, ns, "orders", ReadyReason.TLS_UNTRUSTED);

            // The worker pool: provider and delays TLS files both mounted, and runtime.yaml turns Kafka's TLS on.
            pemSecret(ns, "broker-ca", Map.of("ca.crt", certificates.ca()));
            awaitReady(client, ns, "orders", ReadyReason.DECLARED);
            client.resource(BackstageFixtures.pool(ns, "workers", "orders", "orders"))
                    .create();
            BackstageWorkerPool pool = client.resources(BackstageWorkerPool.class)
                    .inNamespace(ns)
                    .withName("workers")
                    .get();
            ConfigMap config = await().atMost(WAIT)
                    .until(
                            () -> client.configMaps()
                                    .inNamespace(ns)
                                    .withName(PoolResources.configMapName(pool))
                                    .get(),
                            c -> c != null);
            String runtimeYaml = config.getData().values().iterator().next();
            assertTrue(runtimeYaml.contains("/etc/backstage/tls/delays/ca.crt"), runtimeYaml);
            assertTrue(runtimeYaml.lines().anyMatch(l -> l.trim().matches("tls: \"?true\"?")), runtimeYaml);

            StringBuilder outputs = new StringBuilder(visibleText(client, ns, "orders"));
            outputs.append(io.fabric8.kubernetes.client.utils.Serialization.asJson(config));
            for (Meter meter : harness.meters().getMeters()) {
                outputs.append(meter.getId().toString()).append('\n');
            }
            outputs.append(logs.toString(StandardCharsets.UTF_8));
            assertFalse(outputs.toString().contains(scram), "the SCRAM password appears in the operator's outputs");
            assertTrue(
                    outputs.toString().contains(ReadyReason.TLS_CERTIFICATE_EXPIRED),
                    "the search covered the failures");
        }
    }

    /** The password (raw and in URLs) and the client key's PEM, whole and line by line. */
    private static List<String> secretValues() {
        List<String> values = new ArrayList<>(List.of(PASSWORD, "not-" + PASSWORD));
        String key = certificates.keyPem("client");
        values.add(key.trim());
        for (String line : key.split("\\R")) {
            if (line.length() >= 16 && !line.startsWith("-----")) {
                values.add(line);
            }
        }
        return values;
    }

    /** Writes to two streams. */
    private static final class Tee extends OutputStream {
        private final OutputStream first;
        private final OutputStream second;

        Tee(OutputStream first, OutputStream second) {
            this.first = first;
            this.second = second;
        }

        @Override
        public void write(int b) throws IOException {
            first.write(b);
            synchronized (second) {
                second.write(b);
            }
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            first.write(b, off, len);
            synchronized (second) {
                second.write(b, off, len);
            }
        }
    }
}
