package dev.backstage.operator.testing;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;

/**
 * A fabric8 mock API server in CRUD mode with Backstage's generated CRDs loaded, so the status subresource is
 * honoured (a status write does not change spec, a spec write does not change status, generation moves on
 * spec changes). The mock does not garbage-collect, call webhooks, validate schemas or do server-side apply.
 */
public final class MockKubernetes implements AutoCloseable {
    /** Where the crd-generator plugin writes the CRDs (target/classes, so on the test classpath). */
    public static final List<String> CRD_RESOURCES = List.of(
            "META-INF/fabric8/backstagetopologies.backstage.dev-v1.yml",
            "META-INF/fabric8/backstageworkerpools.backstage.dev-v1.yml");

    private final KubernetesMockServer server;
    private final KubernetesClient client;

    private MockKubernetes(KubernetesMockServer server, KubernetesClient client) {
        this.server = server;
        this.client = client;
    }

    /** Starts the mock on a free loopback port and loads the CRDs. */
    public static MockKubernetes start() {
        KubernetesMockServer server = new KubernetesMockServer(
                new Context(), new MockWebServer(), new HashMap<>(), new MockApiServerDispatcher(), false);
        server.init();
        KubernetesClient client = server.createClient();
        MockKubernetes mock = new MockKubernetes(server, client);
        mock.loadCrds();
        return mock;
    }

    public KubernetesClient client() {
        return client;
    }

    /**
     * The JOSDK settings an operator needs on this mock: server-side apply off (for the primary's status and for
     * the dependents), since the mock does not implement it. Production keeps JOSDK's SSA defaults.
     */
    public static void withoutServerSideApply(io.javaoperatorsdk.operator.api.config.ConfigurationServiceOverrider o) {
        o.withUseSSAToPatchPrimaryResource(false).withSSABasedCreateUpdateMatchForDependentResources(false);
    }

    /** A kubeconfig that points at this mock, for a child process (e.g. the operator's main) to use. */
    public String kubeconfig() {
        String url = client.getConfiguration().getMasterUrl();
        return String.join(
                "\n",
                "apiVersion: v1",
                "kind: Config",
                "clusters:",
                "- name: mock",
                "  cluster:",
                "    server: " + url,
                "contexts:",
                "- name: mock",
                "  context:",
                "    cluster: mock",
                "    user: mock",
                "    namespace: default",
                "current-context: mock",
                "users:",
                "- name: mock",
                "  user:",
                "    token: mock-token",
                "");
    }

    private void loadCrds() {
        for (String resource : CRD_RESOURCES) {
            client.apiextensions()
                    .v1()
                    .customResourceDefinitions()
                    .resource(crd(resource))
                    .create();
        }
    }

    /** A generated CRD from the classpath; fails clearly when the build has not generated it. */
    public static CustomResourceDefinition crd(String resource) {
        try (InputStream in = MockKubernetes.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is not on the classpath: the crd-generator plugin runs in"
                        + " process-classes; build with mvn (not only the IDE) first");
            }
            return io.fabric8.kubernetes.client.utils.Serialization.unmarshal(in, CustomResourceDefinition.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }
}
