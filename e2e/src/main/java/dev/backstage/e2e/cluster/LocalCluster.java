package dev.backstage.e2e.cluster;

import dev.backstage.e2e.node.KnownImages;
import dev.backstage.e2e.node.NodeAgent;
import dev.backstage.testsupport.ControlPlane;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The real local cluster: the {@link ControlPlane} of {@code bin/control-plane}, an admin client for it, and the
 * {@link NodeAgent} that runs its pods in this JVM, with the {@link KnownImages} it runs them from. One per JVM
 * ({@link #shared()}).
 */
public final class LocalCluster implements AutoCloseable {
    private static LocalCluster shared;

    private final ControlPlane controlPlane;
    private final KubernetesClient client;
    private final NodeAgent node;
    private final KnownImages images;

    private LocalCluster(ControlPlane controlPlane, KubernetesClient client, NodeAgent node, KnownImages images) {
        this.controlPlane = controlPlane;
        this.client = client;
        this.node = node;
        this.images = images;
    }

    /** The cluster of this JVM, with its node agent (stopped when the JVM exits). */
    public static synchronized LocalCluster shared() {
        if (shared == null) {
            shared = start(
                    ControlPlane.repoRoot().resolve("e2e").resolve("target").resolve("node-agent"));
            LocalCluster cluster = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(cluster::close, "local-cluster-stop"));
        }
        return shared;
    }

    /** Starts (or reuses) the control plane and starts a node agent whose pods live under {@code nodeDir}. */
    public static LocalCluster start(Path nodeDir) {
        ControlPlane controlPlane = ControlPlane.shared();
        KubernetesClient client = client(controlPlane.kubeconfig());
        KnownImages images = KnownImages.fromThisClassPath();
        NodeAgent node = new NodeAgent(client, nodeDir, images).start();
        return new LocalCluster(controlPlane, client, node, images);
    }

    /** A client with the credentials of {@code kubeconfig}. */
    public static KubernetesClient client(Path kubeconfig) {
        try {
            return new KubernetesClientBuilder()
                    .withConfig(Config.fromKubeconfig(Files.readString(kubeconfig)))
                    .build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public KubernetesClient client() {
        return client;
    }

    public NodeAgent node() {
        return node;
    }

    /** The images the node runs; a test registers another build of an image here ({@link KnownImages#registerOperator}). */
    public KnownImages images() {
        return images;
    }

    public ControlPlane controlPlane() {
        return controlPlane;
    }

    public Path kubeconfig() {
        return controlPlane.kubeconfig();
    }

    public Path root() {
        return controlPlane.root();
    }

    public ControlPlane.Result kubectl(String... args) {
        return controlPlane.kubectl(args);
    }

    public ControlPlane.Result kubectlWithInput(String stdin, String... args) {
        return controlPlane.kubectlWithInput(stdin, args);
    }

    public ControlPlane.Result helm(String... args) {
        return controlPlane.helm(args);
    }

    /** Stops the node agent (its containers end); the control plane stays up for the next run. */
    @Override
    public void close() {
        node.close();
        client.close();
    }
}
