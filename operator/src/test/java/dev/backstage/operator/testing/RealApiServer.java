package dev.backstage.operator.testing;

import dev.backstage.testsupport.ControlPlane;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;

/**
 * The real API server of {@code bin/control-plane} for the operator's own tests (no pods run here: the e2e module
 * adds the node agent): the committed CRDs applied, an admin client, fresh namespaces.
 */
public final class RealApiServer {
    private static RealApiServer shared;

    private final ControlPlane controlPlane;
    private final KubernetesClient client;

    private RealApiServer(ControlPlane controlPlane, KubernetesClient client) {
        this.controlPlane = controlPlane;
        this.client = client;
    }

    /**
     * Starts the control plane if needed, applies {@code crds/} and waits for them to be Established. An operator's
     * admission webhook left on the cluster by {@code bin/demo --keep} or an interrupted e2e run is removed first:
     * its pod does not run here, and with {@code failurePolicy: Fail} it would refuse every write of our kinds.
     */
    public static synchronized RealApiServer shared() {
        if (shared == null) {
            ControlPlane cp = ControlPlane.shared();
            cp.kubectl(
                            "delete",
                            "validatingwebhookconfiguration",
                            "-l",
                            "app.kubernetes.io/name=backstage-operator",
                            "--ignore-not-found")
                    .orThrow();
            cp.kubectl(
                            "apply",
                            "--server-side",
                            "--force-conflicts",
                            "-f",
                            cp.root().resolve("crds").toString())
                    .orThrow();
            try {
                KubernetesClient client = new KubernetesClientBuilder()
                        .withConfig(Config.fromKubeconfig(Files.readString(cp.kubeconfig())))
                        .build();
                // A watch on the CRDs' conditions (kubectl wait fails outright on a CRD whose status has no
                // conditions yet, which a just-applied CRD may not).
                for (String crd :
                        java.util.List.of("backstageworkerpools.backstage.dev", "backstagetopologies.backstage.dev")) {
                    client.apiextensions()
                            .v1()
                            .customResourceDefinitions()
                            .withName(crd)
                            .waitUntilCondition(
                                    c -> c != null
                                            && c.getStatus() != null
                                            && c.getStatus().getConditions() != null
                                            && c.getStatus().getConditions().stream()
                                                    .anyMatch(k -> "Established".equals(k.getType())
                                                            && "True".equals(k.getStatus())),
                                    60,
                                    java.util.concurrent.TimeUnit.SECONDS);
                }
                shared = new RealApiServer(cp, client);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return shared;
    }

    public ControlPlane controlPlane() {
        return controlPlane;
    }

    /** The cluster admin's client (shared: do not close). */
    public KubernetesClient client() {
        return client;
    }

    /** Creates a namespace with a unique name starting with {@code base}. */
    public String namespace(String base) {
        String name = UniqueNames.prefix(base).toLowerCase().replaceAll("[^a-z0-9-]", "-");
        controlPlane.kubectl("create", "namespace", name).orThrow();
        return name;
    }

    /** Deletes a namespace without waiting for it to be gone. */
    public void deleteNamespace(String name) {
        controlPlane.kubectl("delete", "namespace", name, "--wait=false");
    }
}
