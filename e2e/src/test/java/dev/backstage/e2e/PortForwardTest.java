package dev.backstage.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.e2e.cluster.LocalCluster;
import dev.backstage.e2e.node.NodeAgent;
import dev.backstage.testsupport.UniqueNames;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The real {@code kubectl port-forward} against a pod of the {@link NodeAgent}: kubectl speaks WebSocket to the API
 * server, which tunnels it as SPDY/3.1 to the node's kubelet port (the Node's {@code daemonEndpoints}), and the node
 * joins each forwarded connection to the local port the container port is mapped to. One pod (the operator image:
 * its probe port 8081 serves {@code /metrics}) serves every test.
 */
@Tag("slow")
@Tag("cluster")
class PortForwardTest {
    private static LocalCluster cluster;
    private static String ns;

    @BeforeAll
    static void aPodOfTheOperatorImage() {
        cluster = LocalCluster.shared();
        ns = UniqueNames.prefix("e2e-pf");
        cluster.kubectl("create", "namespace", ns).orThrow();
        // Without rights in its namespace the operator goes on running (and logging); its HTTP port answers.
        cluster.kubectlWithInput("""
                apiVersion: v1
                kind: Pod
                metadata: {name: target}
                spec:
                  terminationGracePeriodSeconds: 5
                  containers:
                    - name: operator
                      image: backstage-operator:0.1.0
                      ports: [{name: http, containerPort: 8081}]
                      readinessProbe: {tcpSocket: {port: http}, periodSeconds: 1}
                      env: [{name: BACKSTAGE_LEADER_ELECTION, value: "false"}, {name: WATCH_NAMESPACES, value: %s}]
                """.formatted(ns), "apply", "-n", ns, "-f", "-")
                .orThrow();
        // Ready once its HTTP port listens: kubectl port-forward gives up on the first refused connection.
        cluster.kubectl("wait", "pod/target", "-n", ns, "--for=condition=Ready", "--timeout=120s")
                .orThrow();
    }

    @AfterAll
    static void removeTheNamespace() {
        if (cluster != null) {
            cluster.kubectl("delete", "namespace", ns, "--wait=false");
        }
    }

    @Test
    void givenARunningPod_whenKubectlPortForwardsToIt_thenConnectionsReachTheContainerPortThroughTheApiServer()
            throws Exception {
        int local = ForwardingProcess.freePort();
        try (ForwardingProcess forward = ForwardingProcess.start(
                cluster.controlPlane(), local, kubectl(), "port-forward", "pod/target", "-n", ns, local + ":8081")) {
            String metrics = get(local, "/metrics");
            assertTrue(metrics.startsWith("HTTP/1.1 200"), metrics);
            assertTrue(
                    metrics.contains("jvm_"),
                    "the JVM's metrics: " + metrics.lines().limit(5).toList());

            // Eight connections at once: eight stream pairs on the one SPDY connection, each its own pod connection.
            List<CompletableFuture<String>> parallel = IntStream.range(0, 8)
                    .mapToObj(i -> CompletableFuture.supplyAsync(() -> get(local, "/healthz")))
                    .toList();
            for (CompletableFuture<String> response : parallel) {
                assertTrue(response.get().startsWith("HTTP/1.1 "), response.get());
            }
            // Twelve requests on one connection (one stream pair), 90 KB of answers: past SPDY's 64 KiB initial
            // window, so nothing waits for a WINDOW_UPDATE (neither side sends one).
            String pipelined = exchange(
                    local,
                    "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".repeat(11)
                            + "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
            assertEquals(12, pipelined.split("HTTP/1.1 200", -1).length - 1, pipelined.length() + " bytes");
            assertTrue(pipelined.length() > 64 * 1024, "more than a window: " + pipelined.length() + " bytes");
            assertFalse(forward.output().contains("error"), forward.output());
        }
        assertRefused(local);
    }

    @Test
    void givenAPortThePodDoesNotHave_whenAConnectionIsForwarded_thenKubectlSaysWhichPortsItHas() throws Exception {
        int local = ForwardingProcess.freePort();
        try (ForwardingProcess forward = ForwardingProcess.start(
                cluster.controlPlane(), local, kubectl(), "port-forward", "pod/target", "-n", ns, local + ":9999")) {
            try {
                get(local, "/");
            } catch (UncheckedIOException e) {
                // the connection is closed without an answer, as a kubelet does
            }
            await("kubectl's report of the node's error")
                    .atMost(Duration.ofSeconds(30))
                    .until(
                            forward::output,
                            out -> out.contains("error forwarding port 9999 to pod " + ns
                                    + "/target: its container has no port 9999 (it has [8081, 8082, 8443])"));
        }
    }

    @Test
    void givenAPodThisNodeDoesNotRun_whenKubectlPortForwardsToIt_thenTheApiServerRefusesItAtOnce() {
        var result = cluster.kubectl("port-forward", "pod/absent", "-n", ns, ForwardingProcess.freePort() + ":8081");
        assertEquals(1, result.exit(), result.out());
        assertTrue(result.err().contains("pods \"absent\" not found"), result.err());
    }

    private static String kubectl() {
        return cluster.controlPlane().kubectlBinary().toString();
    }

    /** One HTTP/1.0 request on its own connection (so the pod closes it): the whole response, headers and body. */
    private static String get(int port, String path) {
        return exchange(port, "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
    }

    /** Writes {@code requests} on a new connection and reads until the pod closes it. */
    private static String exchange(int port, String requests) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            OutputStream out = socket.getOutputStream();
            out.write(requests.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void assertRefused(int port) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            throw new AssertionError("local port " + port + " still accepts connections after the forward stopped");
        } catch (ConnectException expected) {
            // stopped
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
