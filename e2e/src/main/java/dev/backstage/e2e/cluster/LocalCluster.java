package dev.backstage.e2e.cluster;

import dev.backstage.e2e.node.KnownImages;
import dev.backstage.e2e.node.NodeAgent;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The real local cluster: the control plane {@code bin/control-plane up} builds (once) and starts, a client
 * for it, the {@link NodeAgent} that runs its pods in this JVM, and the real {@code kubectl} and {@code helm}
 * ({@code bin/lib.sh ensure_kube_tools}) with its {@code KUBECONFIG}. One per JVM ({@link #shared()}).
 */
public final class LocalCluster implements AutoCloseable {
    private static LocalCluster shared;

    private final Path root;
    private final Path kubeconfig;
    private final KubernetesClient client;
    private final NodeAgent node;
    private final Path kubectl;
    private final Path helm;

    private LocalCluster(Path root, Path kubeconfig, KubernetesClient client, NodeAgent node, Path kubectl, Path helm) {
        this.root = root;
        this.kubeconfig = kubeconfig;
        this.client = client;
        this.node = node;
        this.kubectl = kubectl;
        this.helm = helm;
    }

    /**
     * The cluster of this JVM: started (and built, the first time on a machine) on first use, its node agent
     * stopped when the JVM exits.
     *
     * @throws IllegalStateException when the control plane cannot be built or started (the message says why)
     */
    public static synchronized LocalCluster shared() {
        if (shared == null) {
            shared = start(repoRoot(), repoRoot().resolve("e2e").resolve("target").resolve("node-agent"));
            LocalCluster cluster = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(cluster::close, "local-cluster-stop"));
        }
        return shared;
    }

    /** Starts (or reuses) the control plane and starts a node agent whose pods live under {@code nodeDir}. */
    public static LocalCluster start(Path root, Path nodeDir) {
        Result up = run(root, Map.of(), 3600, true, null, root.resolve("bin/control-plane").toString(), "up");
        if (up.exit() != 0) {
            throw new IllegalStateException("bin/control-plane up failed (exit " + up.exit() + "): " + up.lastLine());
        }
        Path kubeconfig = Path.of(up.out().lines().filter(l -> l.startsWith("export KUBECONFIG="))
                .reduce((a, b) -> b).orElseThrow(() -> new IllegalStateException("bin/control-plane printed no KUBECONFIG"))
                .substring("export KUBECONFIG=".length()).trim());
        Result tools = run(root, Map.of(), 600, true, null, "bash", "-c",
                "source bin/lib.sh && ensure_kube_tools && echo \"$KUBECTL\" && echo \"$HELM\"");
        if (tools.exit() != 0) {
            throw new IllegalStateException("kubectl/helm could not be fetched: " + tools.lastLine());
        }
        List<String> lines = tools.out().lines().toList();
        Path kubectl = Path.of(lines.get(lines.size() - 2));
        Path helm = Path.of(lines.get(lines.size() - 1));
        KubernetesClient client = client(kubeconfig);
        NodeAgent node = new NodeAgent(client, nodeDir, KnownImages.fromThisClassPath()).start();
        return new LocalCluster(root, kubeconfig, client, node, kubectl, helm);
    }

    /** A client with the cluster admin's credentials. */
    public static KubernetesClient client(Path kubeconfig) {
        try {
            return new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(kubeconfig))).build();
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

    public Path kubeconfig() {
        return kubeconfig;
    }

    public Path root() {
        return root;
    }

    /** Runs the real kubectl with this cluster's KUBECONFIG. */
    public Result kubectl(String... args) {
        return kubectlWithInput(null, args);
    }

    /** Runs the real kubectl with {@code stdin} as its standard input (e.g. for {@code apply -f -}). */
    public Result kubectlWithInput(String stdin, String... args) {
        List<String> command = new ArrayList<>(List.of(kubectl.toString()));
        command.addAll(List.of(args));
        return run(root, Map.of("KUBECONFIG", kubeconfig.toString()), 300, false, stdin, command.toArray(String[]::new));
    }

    /** Runs the real helm with this cluster's KUBECONFIG. */
    public Result helm(String... args) {
        List<String> command = new ArrayList<>(List.of(helm.toString()));
        command.addAll(List.of(args));
        return run(root, Map.of("KUBECONFIG", kubeconfig.toString(), "HELM_CACHE_HOME", root.resolve(".tools/helm-cache").toString(),
                "HELM_CONFIG_HOME", root.resolve(".tools/helm-config").toString()), 600, false, null, command.toArray(String[]::new));
    }

    /** A finished command: its exit code, standard output and standard error. */
    public record Result(int exit, String out, String err) {
        public String lastLine() {
            String text = err.isBlank() ? out : err;
            List<String> lines = text.strip().lines().toList();
            return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
        }

        /** This result, or an exception with the command's output when it failed. */
        public Result orThrow() {
            if (exit != 0) {
                throw new IllegalStateException("exit " + exit + ": " + err.strip() + (out.isBlank() ? "" : "\n" + out.strip()));
            }
            return this;
        }
    }

    private static Result run(Path dir, Map<String, String> env, long timeoutSeconds, boolean echoErr, String stdin,
            String... command) {
        try {
            ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
            builder.environment().putAll(env);
            if (echoErr) {
                builder.redirectError(ProcessBuilder.Redirect.INHERIT); // progress of a first build
            }
            Process process = builder.start();
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(process.getInputStream()));
            CompletableFuture<String> err = echoErr ? CompletableFuture.completedFuture("")
                    : CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
            if (stdin != null) {
                process.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
            }
            process.getOutputStream().close();
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish in " + timeoutSeconds + " s");
            }
            return new Result(process.exitValue(), out.join(), err.join());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static String read(InputStream in) {
        try (in) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            in.transferTo(bytes);
            return bytes.toString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /** The repository: {@code -Dbackstage.repoRoot}, else the parent of the working directory (the module). */
    public static Path repoRoot() {
        String configured = System.getProperty("backstage.repoRoot");
        Path start = configured != null ? Path.of(configured) : Path.of("").toAbsolutePath();
        for (Path p = start.toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isExecutable(p.resolve("bin/control-plane"))) {
                return p;
            }
        }
        throw new IllegalStateException("cannot find the repository (bin/control-plane) from " + start.toAbsolutePath());
    }

    /** Stops the node agent (its containers end); the control plane stays up for the next run. */
    @Override
    public void close() {
        node.close();
        client.close();
    }
}
