package dev.backstage.testsupport;

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
 * The real local Kubernetes control plane of {@code bin/control-plane} (kube-apiserver, etcd and
 * kube-controller-manager built from Go modules), as tests reach it: {@link #shared()} runs
 * {@code bin/control-plane up} once per JVM (building the binaries on a machine's first run, with progress on
 * standard error) and gives its kubeconfig and the real {@code kubectl} and {@code helm}
 * ({@code bin/lib.sh ensure_kube_tools}). Pods need a node agent on top (the e2e module's {@code LocalCluster}).
 */
public final class ControlPlane {
    private static ControlPlane shared;

    private final Path root;
    private final Path kubeconfig;
    private final Path kubectl;
    private final Path helm;

    private ControlPlane(Path root, Path kubeconfig, Path kubectl, Path helm) {
        this.root = root;
        this.kubeconfig = kubeconfig;
        this.kubectl = kubectl;
        this.helm = helm;
    }

    /**
     * The control plane, started (and built the first time on a machine) on first use; it stays up after the JVM.
     *
     * @throws IllegalStateException when it cannot be built or started (the message says why)
     */
    public static synchronized ControlPlane shared() {
        if (shared == null) {
            shared = up(repoRoot());
        }
        return shared;
    }

    private static ControlPlane up(Path root) {
        Result up = run(
                root,
                Map.of(),
                3600,
                true,
                null,
                root.resolve("bin/control-plane").toString(),
                "up");
        if (up.exit() != 0) {
            throw new IllegalStateException("bin/control-plane up failed (exit " + up.exit() + "): " + up.lastLine());
        }
        Path kubeconfig = Path.of(up.out()
                .lines()
                .filter(l -> l.startsWith("export KUBECONFIG="))
                .reduce((a, b) -> b)
                .orElseThrow(() -> new IllegalStateException("bin/control-plane printed no KUBECONFIG"))
                .substring("export KUBECONFIG=".length())
                .trim());
        Result tools = run(
                root,
                Map.of(),
                600,
                true,
                null,
                "bash",
                "-c",
                "source bin/lib.sh && ensure_kube_tools && echo \"$KUBECTL\" && echo \"$HELM\"");
        if (tools.exit() != 0) {
            throw new IllegalStateException("kubectl/helm could not be fetched: " + tools.lastLine());
        }
        List<String> lines = tools.out().lines().toList();
        return new ControlPlane(
                root, kubeconfig, Path.of(lines.get(lines.size() - 2)), Path.of(lines.get(lines.size() - 1)));
    }

    public Path kubeconfig() {
        return kubeconfig;
    }

    public Path root() {
        return root;
    }

    /** The real kubectl's executable ({@code bin/lib.sh ensure_kube_tools}), for a process of its own. */
    public Path kubectlBinary() {
        return kubectl;
    }

    /** Runs the real kubectl with this cluster's KUBECONFIG. */
    public Result kubectl(String... args) {
        return kubectlWithInput(null, args);
    }

    /** Runs the real kubectl with {@code stdin} as its standard input (e.g. for {@code apply -f -}). */
    public Result kubectlWithInput(String stdin, String... args) {
        List<String> command = new ArrayList<>(List.of(kubectl.toString()));
        command.addAll(List.of(args));
        return run(
                root, Map.of("KUBECONFIG", kubeconfig.toString()), 300, false, stdin, command.toArray(String[]::new));
    }

    /**
     * Runs {@code command} (e.g. a kubectl plugin) from the repository root with this cluster's KUBECONFIG, the
     * real kubectl as {@code KUBECTL} and on PATH, and {@code env} added.
     */
    public Result runWithCluster(Map<String, String> env, String... command) {
        Map<String, String> all = new java.util.HashMap<>(env);
        all.putAll(clusterEnv());
        return run(root, all, 300, false, null, command);
    }

    /**
     * A process of {@code command} that runs until stopped (e.g. {@code kubectl port-forward}), from the repository
     * root with the environment of {@link #runWithCluster}; the caller starts it and reads its output.
     */
    public ProcessBuilder processWithCluster(String... command) {
        ProcessBuilder builder = new ProcessBuilder(command).directory(root.toFile());
        builder.environment().putAll(clusterEnv());
        return builder;
    }

    private Map<String, String> clusterEnv() {
        return Map.of(
                "KUBECONFIG",
                kubeconfig.toString(),
                "KUBECTL",
                kubectl.toString(),
                "PATH",
                kubectl.getParent()
                        + java.io.File.pathSeparator
                        + System.getenv().getOrDefault("PATH", ""));
    }

    /** Runs the real helm with this cluster's KUBECONFIG. */
    public Result helm(String... args) {
        List<String> command = new ArrayList<>(List.of(helm.toString()));
        command.addAll(List.of(args));
        return run(
                root,
                Map.of(
                        "KUBECONFIG",
                        kubeconfig.toString(),
                        "HELM_CACHE_HOME",
                        root.resolve(".tools/helm-cache").toString(),
                        "HELM_CONFIG_HOME",
                        root.resolve(".tools/helm-config").toString()),
                600,
                false,
                null,
                command.toArray(String[]::new));
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
                throw new IllegalStateException(
                        "exit " + exit + ": " + err.strip() + (out.isBlank() ? "" : "\n" + out.strip()));
            }
            return this;
        }
    }

    private static Result run(
            Path dir, Map<String, String> env, long timeoutSeconds, boolean echoErr, String stdin, String... command) {
        try {
            ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
            builder.environment().putAll(env);
            if (echoErr) {
                builder.redirectError(ProcessBuilder.Redirect.INHERIT); // the progress of a first build
            }
            Process process = builder.start();
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(process.getInputStream()));
            CompletableFuture<String> err = echoErr
                    ? CompletableFuture.completedFuture("")
                    : CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
            if (stdin != null) {
                process.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
            }
            process.getOutputStream().close();
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(
                        String.join(" ", command) + " did not finish in " + timeoutSeconds + " s");
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

    /** The repository: {@code -Dbackstage.repoRoot}, else the nearest directory up from here with bin/control-plane. */
    public static Path repoRoot() {
        String configured = System.getProperty("backstage.repoRoot");
        Path start = configured != null ? Path.of(configured) : Path.of("").toAbsolutePath();
        for (Path p = start.toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isExecutable(p.resolve("bin/control-plane"))) {
                return p;
            }
        }
        throw new IllegalStateException(
                "cannot find the repository (bin/control-plane) from " + start.toAbsolutePath());
    }
}
