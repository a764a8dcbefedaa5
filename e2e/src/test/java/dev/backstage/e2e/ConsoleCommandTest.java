package dev.backstage.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.e2e.cluster.LocalCluster;
import dev.backstage.e2e.sandbox.RealSandbox;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code kubectl backstage console} end to end: the chart installed as the other e2e tests install it, the real
 * plugin ({@code bin/kubectl-backstage}) finds the operator's console Service and runs the real
 * {@code kubectl port-forward} on it (through the API server to the node agent's kubelet port), and a user with a
 * ServiceAccount token that may read one namespace signs in on the forwarded local port and sees that namespace's
 * topology. Stopping the command (SIGTERM, as Ctrl-C) closes the local port.
 */
@Tag("cluster")
@Tag("broker")
@Tag("slow")
class ConsoleCommandTest {
    private static final String REDIS = System.getenv().getOrDefault("BACKSTAGE_REDIS_URL", "redis://127.0.0.1:6379");
    private static final Pattern FORM = Pattern.compile("name=\"form\" value=\"([^\"]+)\"");

    private static LocalCluster cluster;
    private static String ns;

    @BeforeAll
    static void theChartAndAReaderOfOneNamespace() {
        cluster = LocalCluster.shared();
        RealSandbox.installChart(cluster);
        ns = UniqueNames.prefix("e2e-console");
        cluster.kubectl("create", "namespace", ns).orThrow();
        cluster.kubectlWithInput("""
                        apiVersion: v1
                        kind: Secret
                        metadata: {name: broker}
                        stringData: {url: "%s"}
                        ---
                        apiVersion: backstage.dev/v1alpha1
                        kind: BackstageTopology
                        metadata: {name: console-orders}
                        spec:
                          provider: redis
                          connection: {secretName: broker, key: url}
                          keyPrefix: %s
                          queues: [{name: default}]
                          deletionPolicy: delete
                        ---
                        apiVersion: v1
                        kind: ServiceAccount
                        metadata: {name: viewer}
                        ---
                        apiVersion: rbac.authorization.k8s.io/v1
                        kind: Role
                        metadata: {name: viewer}
                        rules:
                          - apiGroups: [backstage.dev]
                            resources: [backstageworkerpools, backstagetopologies]
                            verbs: [get, list, watch]
                        ---
                        apiVersion: rbac.authorization.k8s.io/v1
                        kind: RoleBinding
                        metadata: {name: viewer}
                        roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: viewer}
                        subjects: [{kind: ServiceAccount, name: viewer, namespace: %s}]
                        """.formatted(REDIS, UniqueNames.prefix("console"), ns), "apply", "-n", ns, "-f", "-")
                .orThrow();
    }

    @AfterAll
    static void removeTheNamespace() {
        if (cluster != null) {
            cluster.kubectl("delete", "namespace", ns, "--wait=false");
        }
    }

    @Test
    void givenTheChartsConsole_whenKubectlBackstageConsoleRuns_thenItsLocalPortServesTheSignInAndTheUsersPages()
            throws Exception {
        String token = cluster.client()
                .serviceAccounts()
                .inNamespace(ns)
                .withName("viewer")
                .tokenRequest(new TokenRequestBuilder()
                        .withNewSpec()
                        .withExpirationSeconds(600L)
                        .endSpec()
                        .build())
                .getStatus()
                .getToken();
        int local = ForwardingProcess.freePort();
        String plugin = cluster.root().resolve("bin/kubectl-backstage").toString();
        try (ForwardingProcess console = ForwardingProcess.start(
                cluster.controlPlane(), local, plugin, "console", "--port", Integer.toString(local))) {
            assertTrue(console.output().contains("console: http://127.0.0.1:" + local + "/"), console.output());
            HttpClient http = HttpClient.newBuilder()
                    .followRedirects(HttpClient.Redirect.NEVER)
                    .build();
            String base = "http://127.0.0.1:" + local;

            HttpResponse<String> form = http.send(
                    HttpRequest.newBuilder(URI.create(base + "/signin")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, form.statusCode(), form.body());
            assertTrue(form.body().contains("<h1>Sign in</h1>"), form.body());
            Matcher formToken = FORM.matcher(form.body());
            assertTrue(formToken.find(), "the sign-in form carries its token: " + form.body());
            String signInCookie = cookie(form);

            HttpResponse<String> signedIn = http.send(
                    HttpRequest.newBuilder(URI.create(base + "/signin"))
                            .header("Cookie", signInCookie)
                            .header("Content-Type", "application/x-www-form-urlencoded")
                            .POST(HttpRequest.BodyPublishers.ofString("form="
                                    + URLEncoder.encode(formToken.group(1), StandardCharsets.UTF_8)
                                    + "&token=" + URLEncoder.encode(token, StandardCharsets.UTF_8)))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(303, signedIn.statusCode(), signedIn.body());
            String session = signedIn.headers().allValues("Set-Cookie").stream()
                    .filter(c -> c.startsWith("backstage_console="))
                    .map(c -> c.substring(0, c.indexOf(';')))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no session cookie: " + signedIn.headers()));

            HttpResponse<String> overview = http.send(
                    HttpRequest.newBuilder(URI.create(base + "/?namespace=" + ns))
                            .header("Cookie", session)
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, overview.statusCode(), overview.body());
            assertTrue(overview.body().contains("<h1>Topologies</h1>"), overview.body());
            assertTrue(overview.body().contains("console-orders"), "the reader's topology: " + overview.body());
            assertFalse(overview.body().contains(token), "the token is never on a page");
            assertTrue(console.alive(), console.output());
        }
        try (Socket socket = new Socket("127.0.0.1", local)) {
            throw new AssertionError("local port " + local + " still open after the console command stopped");
        } catch (ConnectException expected) {
            // the forward ended with the command
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static String cookie(HttpResponse<String> response) {
        return response.headers()
                .firstValue("Set-Cookie")
                .map(c -> c.substring(0, c.indexOf(';')))
                .orElseThrow(() -> new AssertionError("no cookie: " + response.headers()));
    }
}
