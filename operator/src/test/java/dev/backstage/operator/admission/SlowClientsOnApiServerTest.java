package dev.backstage.operator.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.testing.RealApiServer;
import dev.backstage.testsupport.ControlPlane;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The webhook under 64 slow clients, judged by the real API server ({@code bin/control-plane}): a
 * ValidatingWebhookConfiguration ({@code failurePolicy: Fail}, {@code timeoutSeconds: 10}, as the chart sets them)
 * points at a {@link WebhookServer} with the default {@link WebhookLimits}, 64 clients hold connections with a
 * request they never finish and open a new one whenever the server cuts one off, and creates of topologies must
 * still be admitted: the API server refuses them if the webhook does not answer within its timeout.
 */
@Tag("cluster")
class SlowClientsOnApiServerTest {
    private static final int STALLED = 64;

    @Test
    void givenSixtyFourStalledAndReconnectingClients_thenTheApiServerStillAdmitsEveryCreate(@TempDir Path tls)
            throws Exception {
        RealApiServer api = RealApiServer.shared();
        ControlPlane cp = api.controlPlane();
        SelfSignedCertificate certificate = SelfSignedCertificate.generate("EC");
        certificate.writeTo(tls);
        String ns = api.namespace("slow-clients");
        String webhook = ns + "-webhook";
        AtomicBoolean running = new AtomicBoolean(true);
        List<Socket> open = new CopyOnWriteArrayList<>();
        AtomicInteger reconnects = new AtomicInteger();
        AtomicInteger connected = new AtomicInteger();
        List<Thread> clients = new java.util.ArrayList<>();
        try (WebhookServer server =
                new WebhookServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), tls, api.client())) {
            server.start();
            cp.kubectlWithInput(
                            webhookConfiguration(
                                    webhook,
                                    ns,
                                    server.port(),
                                    Files.readString(tls.resolve(WebhookServer.CERTIFICATE_FILE))),
                            "apply",
                            "-f",
                            "-")
                    .orThrow();
            for (int i = 0; i < STALLED; i++) {
                Thread client = new Thread(
                        () -> stallAndReconnect(certificate, server.port(), running, open, connected, reconnects),
                        "stalled-client-" + i);
                client.setDaemon(true);
                client.start();
                clients.add(client);
            }
            // Each client has sent its stalled request at least once (the server cuts each off at its deadline, and
            // the client reconnects at once: how many are open at any moment depends on the machine's speed).
            org.awaitility.Awaitility.await("64 stalled requests")
                    .atMost(java.time.Duration.ofSeconds(120))
                    .until(() -> connected.get() >= STALLED);

            // The webhook configuration takes effect in the API server within a moment. Only the webhook warns about
            // deletionPolicy: delete, so that warning proves the API server calls this webhook (a server-side dry run
            // stores nothing, so each try is a new create).
            java.util.concurrent.atomic.AtomicReference<String> said =
                    new java.util.concurrent.atomic.AtomicReference<>();
            org.awaitility.Awaitility.await("the API server to call the webhook")
                    .atMost(java.time.Duration.ofSeconds(60))
                    .failFast(() -> false)
                    .conditionEvaluationListener(e -> System.out.println("probe: " + said.get()))
                    .until(() -> {
                        ControlPlane.Result probe = cp.kubectlWithInput(
                                topology("probe", "orders") + "  deletionPolicy: delete\n",
                                "create",
                                "--dry-run=server",
                                "-n",
                                ns,
                                "-f",
                                "-");
                        said.set(probe.exit() + " " + probe.err().strip() + " "
                                + probe.out().strip());
                        return probe.err().contains("spec.deletionPolicy is delete");
                    });
            for (int i = 0; i < 5; i++) {
                ControlPlane.Result create =
                        cp.kubectlWithInput(topology("orders-" + i, "orders"), "apply", "-n", ns, "-f", "-");
                assertEquals(
                        0,
                        create.exit(),
                        "create " + i + " under " + open.size() + " stalled clients: " + create.err());
            }
            System.out.println("5 creates admitted with " + STALLED + " stalled clients (" + open.size()
                    + " connections open at the end); the server cut off "
                    + reconnects.get() + " stalled connections meanwhile");
            assertTrue(
                    api.client()
                                    .resources(dev.backstage.operator.model.BackstageTopology.class)
                                    .inNamespace(ns)
                                    .withName("orders-4")
                                    .get()
                            != null,
                    "the last topology is stored");
        } finally {
            running.set(false);
            open.forEach(SlowClientsOnApiServerTest::close);
            cp.kubectl("delete", "validatingwebhookconfiguration", webhook, "--ignore-not-found");
            api.deleteNamespace(ns);
        }
    }

    /** Opens a connection, sends headers and one byte of the body, waits until the server drops it, and again. */
    private static void stallAndReconnect(
            SelfSignedCertificate certificate,
            int port,
            AtomicBoolean running,
            List<Socket> open,
            AtomicInteger connected,
            AtomicInteger reconnects) {
        while (running.get()) {
            SSLSocket socket = null;
            try {
                socket = (SSLSocket) certificate
                        .trustingContext()
                        .getSocketFactory()
                        .createSocket(InetAddress.getLoopbackAddress(), port);
                socket.startHandshake();
                OutputStream out = socket.getOutputStream();
                out.write(("POST " + WebhookServer.TOPOLOGY_PATH + "?timeout=10s HTTP/1.1\r\nHost: localhost\r\n"
                                + "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                open.add(socket);
                connected.incrementAndGet();
                socket.getInputStream().read(); // blocks until the server cuts the connection off
                reconnects.incrementAndGet();
            } catch (IOException e) {
                // cut off, or refused while the server is full: reconnect
            } finally {
                if (socket != null) {
                    open.remove(socket);
                    close(socket);
                }
            }
        }
    }

    private static void close(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    private static String webhookConfiguration(String name, String ns, int port, String caPem) {
        return """
                apiVersion: admissionregistration.k8s.io/v1
                kind: ValidatingWebhookConfiguration
                metadata: {name: %s}
                webhooks:
                  - name: backstagetopology.slow-clients.validate.backstage.dev
                    admissionReviewVersions: ["v1"]
                    sideEffects: None
                    failurePolicy: Fail
                    timeoutSeconds: 10
                    clientConfig:
                      url: https://127.0.0.1:%d%s
                      caBundle: %s
                    rules:
                      - apiGroups: ["backstage.dev"]
                        apiVersions: ["v1alpha1"]
                        resources: ["backstagetopologies"]
                        operations: ["CREATE", "UPDATE"]
                        scope: Namespaced
                    namespaceSelector:
                      matchLabels: {kubernetes.io/metadata.name: %s}
                """.formatted(
                        name,
                        port,
                        WebhookServer.TOPOLOGY_PATH,
                        Base64.getEncoder().encodeToString(caPem.getBytes(StandardCharsets.US_ASCII)),
                        ns);
    }

    private static String topology(String name, String queue) {
        return """
                apiVersion: backstage.dev/v1alpha1
                kind: BackstageTopology
                metadata: {name: %s}
                spec:
                  provider: redis
                  connection: {secretName: broker, key: url}
                  keyPrefix: slow
                  queues: [{name: "%s"}]
                """.formatted(name, queue);
    }
}
