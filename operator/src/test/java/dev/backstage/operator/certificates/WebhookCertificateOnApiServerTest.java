package dev.backstage.operator.certificates;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.admission.TopologyLookup;
import dev.backstage.operator.admission.WebhookLimits;
import dev.backstage.operator.admission.WebhookServer;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.testing.RealApiServer;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The operator's own webhook certificate, judged by the real API server ({@code bin/control-plane}): the manager
 * makes the CA and serving pair in a Secret and patches the caBundle into a ValidatingWebhookConfiguration that has
 * none (as the chart renders it), and the API server then calls the webhook, which admits a valid topology and
 * denies a pool whose topology does not exist (only the webhook can tell). With lifetimes of seconds the serving
 * certificate is reissued and the CA replaced while the same server keeps running, and every admission call made
 * during those rotations is answered by the webhook.
 */
@Tag("cluster")
class WebhookCertificateOnApiServerTest {
    private static final Duration CA_VALIDITY = Duration.ofSeconds(30);
    private static final Duration SERVING_VALIDITY = Duration.ofSeconds(12);
    private static final Duration CHECK_INTERVAL = Duration.ofSeconds(1);

    @Test
    void givenNoCertificate_whenTheManagerRunsAndRotates_thenTheApiServerKeepsCallingTheSameServer() throws Exception {
        RealApiServer api = RealApiServer.shared();
        KubernetesClient client = api.client();
        String ns = api.namespace("webhook-certs");
        String configuration = ns + "-webhook";
        WebhookCertificateSettings settings = new WebhookCertificateSettings(
                ns,
                "webhook-tls",
                configuration,
                List.of("127.0.0.1", "localhost"),
                new RotationPlan(
                        CA_VALIDITY, SERVING_VALIDITY, WebhookCertificateSettings.promotionDelay(CHECK_INTERVAL)),
                CHECK_INTERVAL);
        try (WebhookCertificateManager manager = new WebhookCertificateManager(client, settings, Clock.systemUTC())) {
            manager.start();
            try (WebhookServer server = new WebhookServer(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                    manager.keyManager(),
                    client,
                    WebhookLimits.DEFAULT,
                    TopologyLookup.NONE)) {
                server.start();
                api.controlPlane()
                        .kubectlWithInput(webhookConfiguration(configuration, ns, server.port()), "apply", "-f", "-")
                        .orThrow();

                await("the caBundle patched and the webhook answering")
                        .atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(500))
                        .until(() -> probe(client, ns).equals(List.of("admitted", "denied by the webhook")));
                Secret first = secret(client, ns);
                String firstCa = first.getData().get(WebhookKeyMaterial.CA_CRT);
                String firstServed = servedSerial(server.port(), client, configuration);
                assertEquals(manager.keyManager().servingSerial(), firstServed, "the server serves the stored pair");

                // Both rotations happen within ~30 s; every probe meanwhile must be answered by the webhook.
                List<String> answers = new ArrayList<>();
                List<String> served = new ArrayList<>(List.of(firstServed));
                await("the CA replaced and a certificate it signed served")
                        .atMost(Duration.ofSeconds(75))
                        .pollInterval(Duration.ofMillis(500))
                        .until(() -> {
                            answers.addAll(probe(client, ns));
                            String now = servedSerial(server.port(), client, configuration);
                            if (!now.equals(served.get(served.size() - 1))) {
                                served.add(now);
                            }
                            return !secret(client, ns)
                                            .getData()
                                            .get(WebhookKeyMaterial.CA_CRT)
                                            .equals(firstCa)
                                    && !now.equals(firstServed)
                                    && served.size() >= 3;
                        });
                System.out.println("served certificates " + served + "; " + answers.size() / 2
                        + " admission probes during the rotations");
                assertTrue(
                        answers.stream().allMatch(a -> a.equals("admitted") || a.equals("denied by the webhook")),
                        "every admission call during the rotations was answered by the webhook: "
                                + answers.stream()
                                        .filter(a -> !a.equals("admitted") && !a.equals("denied by the webhook"))
                                        .toList());
                assertNotEquals(firstServed, served.get(served.size() - 1));
                assertEquals(
                        List.of("admitted", "denied by the webhook"),
                        probe(client, ns),
                        "after the rotations, the same server still admits and denies");
            } finally {
                api.controlPlane()
                        .kubectl("delete", "validatingwebhookconfiguration", configuration, "--ignore-not-found");
            }
        } finally {
            api.deleteNamespace(ns);
        }
    }

    @Test
    void givenAConfigurationTrustingAnEarlierCa_whenTheFirstPairIsMade_thenTheCaBundleTrustsBoth() throws Exception {
        RealApiServer api = RealApiServer.shared();
        KubernetesClient client = api.client();
        String ns = api.namespace("webhook-adopt");
        String configuration = ns + "-webhook";
        // What an earlier chart left: a caBundle of its own CA, whose certificate old replicas still serve.
        KeyAndCertificate earlier =
                CertificateIssuer.newCa("earlier-chart-ca", Duration.ofDays(1), java.time.Instant.now());
        String bundle64 = Base64.getEncoder()
                .encodeToString(WebhookKeyMaterial.pem(earlier.certificate()).getBytes(StandardCharsets.US_ASCII));
        String yaml = webhookConfiguration(configuration, ns, 1)
                .replaceAll("(?m)^(\\s*)url: ", "$1caBundle: " + bundle64 + "\n$1url: ");
        assertTrue(yaml.contains("caBundle: " + bundle64), yaml);
        WebhookCertificateSettings settings = new WebhookCertificateSettings(
                ns,
                "webhook-tls",
                configuration,
                List.of("127.0.0.1"),
                new RotationPlan(Duration.ofDays(30), Duration.ofDays(10), Duration.ofSeconds(7)),
                CHECK_INTERVAL);
        try {
            api.controlPlane().kubectlWithInput(yaml, "apply", "-f", "-").orThrow();
            try (WebhookCertificateManager manager =
                    new WebhookCertificateManager(client, settings, Clock.systemUTC())) {
                manager.start();
                for (String bundle : client
                        .admissionRegistration()
                        .v1()
                        .validatingWebhookConfigurations()
                        .withName(configuration)
                        .get()
                        .getWebhooks()
                        .stream()
                        .map(w -> w.getClientConfig().getCaBundle())
                        .toList()) {
                    List<X509Certificate> trusted = WebhookKeyMaterial.certificates(
                            new String(Base64.getDecoder().decode(bundle), StandardCharsets.US_ASCII));
                    assertEquals(2, trusted.size(), "the new CA and the earlier one");
                    assertTrue(trusted.contains(earlier.certificate()), "the earlier CA stays trusted");
                }
            }
        } finally {
            api.controlPlane().kubectl("delete", "validatingwebhookconfiguration", configuration, "--ignore-not-found");
            api.deleteNamespace(ns);
        }
    }

    /** A valid topology (dry run), then a pool whose topology does not exist: what the API server answered. */
    private static List<String> probe(KubernetesClient client, String ns) {
        List<String> outcome = new ArrayList<>();
        try {
            client.resource(client.getKubernetesSerialization().unmarshal(topology(), BackstageTopology.class))
                    .inNamespace(ns)
                    .dryRun()
                    .create();
            outcome.add("admitted");
        } catch (KubernetesClientException e) {
            outcome.add("topology refused: " + e.getMessage());
        }
        try {
            client.resource(client.getKubernetesSerialization().unmarshal(pool(), BackstageWorkerPool.class))
                    .inNamespace(ns)
                    .dryRun()
                    .create();
            outcome.add("pool admitted without its topology");
        } catch (KubernetesClientException e) {
            outcome.add(
                    e.getMessage().contains("denied the request")
                                    && e.getMessage().contains("BackstageTopology 'missing' not found")
                            ? "denied by the webhook"
                            : "pool refused otherwise: " + e.getMessage());
        }
        return outcome;
    }

    private static Secret secret(KubernetesClient client, String ns) {
        return client.secrets().inNamespace(ns).withName("webhook-tls").get();
    }

    /** The serial of what the server presents, verified against the caBundle as the API server holds it. */
    private static String servedSerial(int port, KubernetesClient client, String configuration) throws Exception {
        String bundle = client.admissionRegistration()
                .v1()
                .validatingWebhookConfigurations()
                .withName(configuration)
                .get()
                .getWebhooks()
                .get(0)
                .getClientConfig()
                .getCaBundle();
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        int i = 0;
        for (X509Certificate ca : WebhookKeyMaterial.certificates(
                new String(Base64.getDecoder().decode(bundle), StandardCharsets.US_ASCII))) {
            trust.setCertificateEntry("ca" + i++, ca);
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
            SSLParameters parameters = socket.getSSLParameters();
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
            socket.setSSLParameters(parameters);
            socket.startHandshake();
            return ((X509Certificate) socket.getSession().getPeerCertificates()[0])
                    .getSerialNumber()
                    .toString(16);
        }
    }

    private static String topology() {
        return """
                apiVersion: backstage.dev/v1alpha1
                kind: BackstageTopology
                metadata: {name: orders}
                spec:
                  provider: redis
                  connection: {secretName: broker, key: url}
                  queues: [{name: orders}]
                """;
    }

    private static String pool() {
        return """
                apiVersion: backstage.dev/v1alpha1
                kind: BackstageWorkerPool
                metadata: {name: orders}
                spec:
                  image: backstage-runtime:dev
                  topologyRef: {name: missing}
                  queues: [orders]
                """;
    }

    /** As the chart renders it for the operator-managed certificate: no caBundle. */
    private static String webhookConfiguration(String name, String ns, int port) {
        StringBuilder yaml = new StringBuilder("""
                apiVersion: admissionregistration.k8s.io/v1
                kind: ValidatingWebhookConfiguration
                metadata: {name: %s}
                webhooks:
                """.formatted(name));
        for (String[] kind : List.of(
                new String[] {"backstagetopology", "backstagetopologies", WebhookServer.TOPOLOGY_PATH},
                new String[] {"backstageworkerpool", "backstageworkerpools", WebhookServer.POOL_PATH})) {
            yaml.append("""
                      - name: %s.certs.validate.backstage.dev
                        admissionReviewVersions: ["v1"]
                        sideEffects: None
                        failurePolicy: Fail
                        timeoutSeconds: 10
                        clientConfig:
                          url: https://127.0.0.1:%d%s
                        rules:
                          - apiGroups: ["backstage.dev"]
                            apiVersions: ["v1alpha1"]
                            resources: ["%s"]
                            operations: ["CREATE", "UPDATE"]
                            scope: Namespaced
                        namespaceSelector:
                          matchLabels: {kubernetes.io/metadata.name: %s}
                    """.formatted(kind[0], port, kind[2], kind[1], ns));
        }
        return yaml.toString();
    }
}
