package dev.backstage.operator.main;

import static dev.backstage.operator.testing.BackstageFixtures.createReadyTopology;
import static dev.backstage.operator.testing.BackstageFixtures.pool;
import static dev.backstage.operator.testing.BackstageFixtures.redisTopology;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.testing.RealApiServer;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link OperatorMain} as the container runs it: a child JVM configured only by environment variables and a
 * kubeconfig (pointing at the real API server of {@code bin/control-plane}: the operator applies its dependents
 * and status with server-side apply, which the mock lacks), serving health and metrics, leading through a Lease,
 * reconciling, stopping on SIGTERM, and exiting when another replica takes the Lease.
 */
@Tag("cluster")
class OperatorMainProcessTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static RealApiServer api;
    private static KubernetesClient client;
    private static String shop;
    private static String leaseNamespace;

    @BeforeAll
    static void start() {
        api = RealApiServer.shared();
        client = api.client();
        shop = api.namespace("shop");
        leaseNamespace = api.namespace("backstage-system");
    }

    @AfterAll
    static void stop() {
        api.deleteNamespace(shop);
        api.deleteNamespace(leaseNamespace);
    }

    @Test
    void givenOnlyEnvironment_whenStarted_thenItLeadsServesHealthReconcilesAndStopsOnSigterm(@TempDir Path dir)
            throws Exception {
        int port = freePort();
        // JSON lines for the operator, and for the workers it deploys (what the chart's logFormat and
        // workers.logLevel / workers.logFormat set).
        Process process = startOperator(
                dir,
                port,
                "sigterm-lease",
                Map.of(
                        "BACKSTAGE_LOG_FORMAT",
                        "json",
                        "BACKSTAGE_WORKER_LOG_LEVEL",
                        "debug",
                        "BACKSTAGE_WORKER_LOG_FORMAT",
                        "json"));
        boolean exited = false;
        try {
            HttpClient http = HttpClient.newHttpClient();
            System.out.println("waiting for the operator process to be ready on port " + port);
            await().atMost(WAIT).ignoreExceptions().until(() -> status(http, port, "/readyz") == 200);
            awaitHolder("sigterm-lease", "backstage-operator-0");

            createReadyTopology(client, redisTopology(shop, "orders", "orders"));
            client.resource(pool(shop, "workers", "orders", "orders")).create();
            Deployment workers = await().atMost(WAIT)
                    .until(
                            () -> client.apps()
                                    .deployments()
                                    .inNamespace(shop)
                                    .withName("workers")
                                    .get(),
                            d -> d != null);
            Map<String, String> workerEnv = new HashMap<>();
            workers.getSpec()
                    .getTemplate()
                    .getSpec()
                    .getContainers()
                    .get(0)
                    .getEnv()
                    .forEach(e -> workerEnv.put(e.getName(), e.getValue()));
            assertEquals(
                    "debug", workerEnv.get("BACKSTAGE_LOG_LEVEL"), "the workers' level, applied by the API server");
            assertEquals("json", workerEnv.get("BACKSTAGE_LOG_FORMAT"));
            String metrics = http.send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            assertTrue(metrics.contains("operator_sdk_reconciliations_started_total"), "JOSDK metrics exported");
            assertTrue(metrics.contains("jvm_memory_used_bytes"), "JVM metrics exported");

            process.destroy(); // SIGTERM
            exited = process.waitFor(30, TimeUnit.SECONDS);
            assertTrue(exited, "the operator exits within 30 s of SIGTERM");
            List<String> lines = Files.readAllLines(dir.resolve("operator.log"));
            assertTrue(lines.size() >= 3, "start-up, leadership, shutdown: " + lines);
            for (String line : lines) {
                JsonNode event = JSON.readTree(line); // one JSON value per line, or it throws
                assertTrue(
                        event.path("level").isTextual()
                                && event.path("logger").isTextual()
                                && event.path("message").isTextual()
                                && event.path("timestamp").isTextual(),
                        line);
            }
            assertTrue(lines.stream().anyMatch(l -> l.contains("operator started")), "the main's own line");
        } finally {
            finish(process, dir, exited);
        }
    }

    @Test
    void givenAnUnchangedPool_thenItsHeartbeatAdvancesWhileTheOperatorRuns_andKubectlShowsItsAge(@TempDir Path dir)
            throws Exception {
        int port = freePort();
        Process process = startOperator(dir, port, "heartbeat-lease", Map.of("BACKSTAGE_STATUS_HEARTBEAT", "5s"));
        boolean exited = false;
        try {
            awaitHolder("heartbeat-lease", "backstage-operator-0");
            createReadyTopology(client, redisTopology(shop, "beats", "orders"));
            client.resource(pool(shop, "beating", "beats", "orders")).create();
            String first =
                    await("a first heartbeat in status").atMost(WAIT).until(() -> heartbeat("beating"), h -> h != null);
            Long generation = client.resources(BackstageWorkerPool.class)
                    .inNamespace(shop)
                    .withName("beating")
                    .get()
                    .getMetadata()
                    .getGeneration();
            // Nothing about the pool changes: only the heartbeat moves the status on.
            String later = await("a later heartbeat with the pool unchanged")
                    .atMost(WAIT)
                    .until(
                            () -> heartbeat("beating"),
                            h -> h != null && Instant.parse(h).isAfter(Instant.parse(first)));
            assertEquals(
                    generation,
                    client.resources(BackstageWorkerPool.class)
                            .inNamespace(shop)
                            .withName("beating")
                            .get()
                            .getMetadata()
                            .getGeneration(),
                    "the spec did not change");
            String table = api.controlPlane()
                    .kubectl("get", "bwp", "beating", "-n", shop)
                    .orThrow()
                    .out();
            assertTrue(table.lines().findFirst().orElseThrow().contains("HEARTBEAT"), table);
            System.out.println("heartbeats " + first + " then " + later + "\n" + table);
            client.resources(BackstageWorkerPool.class)
                    .inNamespace(shop)
                    .withName("beating")
                    .delete();
        } finally {
            finish(process, dir, exited);
        }
    }

    private static String heartbeat(String pool) {
        BackstageWorkerPool p = client.resources(BackstageWorkerPool.class)
                .inNamespace(shop)
                .withName(pool)
                .get();
        return p == null || p.getStatus() == null ? null : p.getStatus().getHeartbeatTime();
    }

    @Test
    void givenABadLogOrWorkerLogValue_whenStarted_thenOneLineNamesTheAllowedValuesAndItExitsWithStatusTwo(
            @TempDir Path dir) throws Exception {
        Process badFormat = startOperator(dir, freePort(), "unused-lease", Map.of("BACKSTAGE_LOG_FORMAT", "xml"));
        assertTrue(badFormat.waitFor(60, TimeUnit.SECONDS));
        assertEquals(2, badFormat.exitValue());
        assertEquals(
                List.of("error: BACKSTAGE_LOG_FORMAT must be one of text, json, got 'xml'"),
                Files.readAllLines(dir.resolve("operator.err")));

        Process badWorkers = startOperator(
                dir,
                freePort(),
                "unused-lease",
                Map.of("BACKSTAGE_LOG_FORMAT", "json", "BACKSTAGE_WORKER_LOG_LEVEL", "loud"));
        assertTrue(badWorkers.waitFor(60, TimeUnit.SECONDS));
        assertEquals(2, badWorkers.exitValue());
        List<String> lines = Files.readAllLines(dir.resolve("operator.log"));
        assertEquals(1, lines.size(), "one line: " + lines);
        assertEquals(
                "bad setting: BACKSTAGE_WORKER_LOG_LEVEL must be one of trace, debug, info, warn, error, off,"
                        + " got 'loud'",
                JSON.readTree(lines.get(0)).get("message").asText());

        Process badHeartbeat = startOperator(
                dir,
                freePort(),
                "unused-lease",
                Map.of("BACKSTAGE_LOG_FORMAT", "json", "BACKSTAGE_STATUS_HEARTBEAT", "1s"));
        assertTrue(badHeartbeat.waitFor(60, TimeUnit.SECONDS));
        assertEquals(2, badHeartbeat.exitValue());
        List<String> heartbeatLines = Files.readAllLines(dir.resolve("operator.log"));
        assertEquals(1, heartbeatLines.size(), "one line: " + heartbeatLines);
        assertEquals(
                "bad setting: BACKSTAGE_STATUS_HEARTBEAT must be at least 5s, got 1s",
                JSON.readTree(heartbeatLines.get(0)).get("message").asText());
    }

    @Test
    void givenLeader_whenAnotherReplicaTakesTheLease_thenTheProcessExits(@TempDir Path dir) throws Exception {
        int port = freePort();
        Process process = startOperator(dir, port, "stolen-lease", Map.of());
        boolean exited = false;
        try {
            awaitHolder("stolen-lease", "backstage-operator-0");

            // What a new leader's elector writes after the old holder's lease has run out: an update from the copy
            // it read, tried again when the holder's renewal got in first (the API server's optimistic locking).
            await().atMost(WAIT)
                    .ignoreException(KubernetesClientException.class)
                    .until(() -> {
                        Lease lease = client.leases()
                                .inNamespace(leaseNamespace)
                                .withName("stolen-lease")
                                .get();
                        lease.getSpec().setHolderIdentity("backstage-operator-1");
                        lease.getSpec().setRenewTime(ZonedDateTime.now().plusMinutes(10));
                        lease.getSpec().setAcquireTime(ZonedDateTime.now());
                        lease.getSpec().setLeaseDurationSeconds(600);
                        client.leases()
                                .inNamespace(leaseNamespace)
                                .resource(lease)
                                .update();
                        return true;
                    });

            exited = process.waitFor(30, TimeUnit.SECONDS);
            assertTrue(exited, "a deposed leader exits");
            assertEquals(1, process.exitValue());
        } finally {
            finish(process, dir, exited);
        }
    }

    /** The operator's main in its own JVM: stdout in operator.log, stderr in operator.err. */
    private static Process startOperator(Path dir, int port, String leaseName, Map<String, String> env)
            throws IOException {
        Path kubeconfig = dir.resolve("kubeconfig");
        Files.copy(api.controlPlane().kubeconfig(), kubeconfig, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        ProcessBuilder builder = new ProcessBuilder(List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        OperatorMain.class.getName()))
                .redirectOutput(dir.resolve("operator.log").toFile())
                .redirectError(dir.resolve("operator.err").toFile());
        builder.environment()
                .keySet()
                .removeIf(k -> k.startsWith("BACKSTAGE_LOG_") || k.startsWith("BACKSTAGE_WORKER_LOG_"));
        builder.environment().put("KUBECONFIG", kubeconfig.toString());
        builder.environment().put("WATCH_NAMESPACES", shop);
        builder.environment().put("BACKSTAGE_LEASE_NAME", leaseName);
        builder.environment().put("BACKSTAGE_LEASE_NAMESPACE", leaseNamespace);
        // Short lease timing, so that losing the lease shows within seconds.
        builder.environment().put("BACKSTAGE_LEASE_DURATION", "4s");
        builder.environment().put("BACKSTAGE_LEASE_RENEW_DEADLINE", "3s");
        builder.environment().put("BACKSTAGE_LEASE_RETRY_PERIOD", "500ms");
        builder.environment().put("POD_NAME", "backstage-operator-0");
        builder.environment().put("BACKSTAGE_HTTP_PORT", String.valueOf(port));
        builder.environment().put("BACKSTAGE_CONSOLE_PORT", "0"); // on, as the chart ships it, on a free port
        builder.environment().putAll(env);
        return builder.start();
    }

    private static Lease awaitHolder(String leaseName, String holder) {
        System.out.println("waiting for " + holder + " to hold lease " + leaseName);
        return await().atMost(WAIT)
                .until(
                        () -> client.leases()
                                .inNamespace(leaseNamespace)
                                .withName(leaseName)
                                .get(),
                        lease -> lease != null && holder.equals(lease.getSpec().getHolderIdentity()));
    }

    private static void finish(Process process, Path dir, boolean exited) throws IOException {
        if (!exited) {
            process.destroyForcibly();
        }
        System.out.println(Files.readString(dir.resolve("operator.log")));
        System.out.println(Files.readString(dir.resolve("operator.err")));
    }

    private static int status(HttpClient http, int port, String path) throws IOException, InterruptedException {
        return http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                .build(),
                        HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
