package dev.backstage.e2e.sandbox;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;

/**
 * The sandbox's API server: fabric8's mock in CRUD mode with the operator's generated CRDs loaded from its jar, so
 * the status subresource is honoured. It does not garbage-collect, call webhooks, validate schemas or do server-side
 * apply (the sandbox's operator runs with server-side apply off and without leader election). Main code of its own,
 * so the e2e module needs nothing from the operator's tests.
 */
final class SandboxApiServer implements AutoCloseable {
    /** Where the operator's crd-generator plugin writes the CRDs (its classes, so in its jar). */
    private static final List<String> CRD_RESOURCES = List.of(
            "META-INF/fabric8/backstagetopologies.backstage.dev-v1.yml",
            "META-INF/fabric8/backstageworkerpools.backstage.dev-v1.yml");

    private final KubernetesMockServer server;
    private final KubernetesClient client;

    private SandboxApiServer(KubernetesMockServer server, KubernetesClient client) {
        this.server = server;
        this.client = client;
    }

    /** Starts the mock on a free loopback port and loads the CRDs. */
    static SandboxApiServer start() {
        KubernetesMockServer server = new KubernetesMockServer(
                new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(List.of()), false);
        server.init();
        KubernetesClient client = server.createClient();
        for (String resource : CRD_RESOURCES) {
            client.apiextensions()
                    .v1()
                    .customResourceDefinitions()
                    .resource(crd(resource))
                    .create();
        }
        return new SandboxApiServer(server, client);
    }

    KubernetesClient client() {
        return client;
    }

    private static CustomResourceDefinition crd(String resource) {
        try (InputStream in = SandboxApiServer.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is not on the classpath: build the operator module with"
                        + " mvn first (its crd-generator writes it)");
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
