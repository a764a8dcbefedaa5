package dev.backstage.e2e.node;

import dev.backstage.e2e.kubelet.ChildJvmPod;
import dev.backstage.e2e.kubelet.PodSpecResolver;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pod's container as a process: started as a JVM of a known image with the Pod's env, volumes, args, service
 * account and resource limits (every container port mapped to a free local port), restarted after it exits as the
 * restartPolicy says with a back-off of 1 s doubling to 20 s, and stopped with SIGTERM, the grace period, then
 * SIGKILL when the Pod is deleted. An unknown image leaves the Pod waiting in {@code ErrImagePull}.
 */
final class PodProcesses {
    private static final Logger LOG = LoggerFactory.getLogger(PodProcesses.class);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(20);

    private final KubernetesClient client;
    private final KnownImages images;
    private final PodEvents events;
    private final java.util.function.BiFunction<String, String, Path> podDir;

    PodProcesses(
            KubernetesClient client,
            KnownImages images,
            PodEvents events,
            java.util.function.BiFunction<String, String, Path> podDir) {
        this.client = client;
        this.images = images;
        this.events = events;
        this.podDir = podDir;
    }

    void start(Pod pod, PodState state, Container container) {
        Optional<KnownImages.Image> image = images.resolve(container.getImage());
        if (image.isEmpty()) {
            state.waitingReason = "ErrImagePull";
            state.waitingMessage = "image " + container.getImage() + " is not one this node can run; it runs "
                    + String.join(", ", images.names()) + " (any registry and tag, but a name:tag runs only that tag)";
            if (!state.warnedImage) {
                state.warnedImage = true;
                events.event(
                        pod,
                        "Warning",
                        "Failed",
                        "Failed to pull image \"" + container.getImage() + "\": " + state.waitingMessage);
            }
            return;
        }
        Path dir = podDir.apply(state.namespace, state.name);
        try {
            Files.createDirectories(dir);
            PodSpecResolver resolver = new PodSpecResolver(client, state.namespace);
            Map<String, String> env = new LinkedHashMap<>();
            env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
            env.put("HOME", dir.toString());
            env.put("HOSTNAME", state.name);
            env.put("KUBERNETES_SERVICE_HOST", client.getMasterUrl().getHost());
            env.put(
                    "KUBERNETES_SERVICE_PORT",
                    Integer.toString(client.getMasterUrl().getPort()));
            env.putAll(resolver.resolve(pod, container, dir, NodeAgent.HOST_IP));
            serviceAccount(resolver.mounts(), env);
            Map<Integer, Integer> ports = new HashMap<>();
            for (ContainerPort port : container.getPorts() == null ? List.<ContainerPort>of() : container.getPorts()) {
                String variable = image.get().portVariables().get(port.getContainerPort());
                if (variable != null) {
                    int local = freePort();
                    ports.put(port.getContainerPort(), local);
                    env.put(variable, Integer.toString(local));
                }
            }
            for (Map.Entry<Integer, String> known : image.get().portVariables().entrySet()) {
                if (!ports.containsKey(known.getKey())) { // an undeclared port still must not collide
                    int local = freePort();
                    ports.put(known.getKey(), local);
                    env.put(known.getValue(), Integer.toString(local));
                }
            }
            List<String> args = new ArrayList<>();
            if (container.getCommand() != null && !container.getCommand().isEmpty()) {
                throw new IllegalStateException(
                        "container command overrides the image's entry point, which this node does not support");
            }
            if (container.getArgs() != null) {
                args.addAll(container.getArgs());
            }
            ChildJvmPod process = ChildJvmPod.start(
                    state.name,
                    jvmOptions(container),
                    image.get().classPath(),
                    image.get().mainClass(),
                    args,
                    env,
                    ports.getOrDefault(8080, 0),
                    dir.resolve("pod.log"));
            state.ports = Map.copyOf(ports);
            state.container = process;
            state.startedAt = Instant.now();
            state.started = container.getStartupProbe() == null;
            state.ready = false;
            state.waitingReason = null;
            state.waitingMessage = null;
            state.nextProbeNanos.clear();
            state.failures.clear();
            state.successes.clear();
            LOG.info(
                    "pod {}/{}: started {} as pid {} (log {})",
                    state.namespace,
                    state.name,
                    image.get().name(),
                    process.pid(),
                    dir.resolve("pod.log"));
            events.event(
                    pod,
                    "Normal",
                    "Started",
                    "Started container " + container.getName() + " ("
                            + image.get().name() + ", pid " + process.pid() + ")");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            state.waitingReason = "CreateContainerConfigError";
            state.waitingMessage = e.getMessage();
            state.notBeforeNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            if (!Objects.equals(e.getMessage(), state.lastConfigError)) {
                state.lastConfigError = e.getMessage();
                events.event(pod, "Warning", "Failed", "Error: " + e.getMessage());
            }
        }
    }

    /**
     * The container would find the service-account token, CA and namespace at the standard path; this process
     * cannot, so the Kubernetes client's own settings point at the projected volume.
     */
    private static void serviceAccount(Map<String, String> mounts, Map<String, String> env) {
        String dir = mounts.get("/var/run/secrets/kubernetes.io/serviceaccount");
        // Never a kubeconfig of this machine: the pod must authenticate as its service account.
        env.put("KUBERNETES_AUTH_TRYKUBECONFIG", "false");
        env.put("KUBECONFIG", "/nonexistent");
        if (dir == null) {
            env.put("KUBERNETES_AUTH_TRYSERVICEACCOUNT", "false");
            return;
        }
        env.put("KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN", dir + "/token");
        env.put("KUBERNETES_CERTS_CA_FILE", dir + "/ca.crt");
        try {
            env.put(
                    "KUBERNETES_NAMESPACE",
                    Files.readString(Path.of(dir, "namespace")).trim());
        } catch (IOException e) {
            // no namespace file: the client uses "default"
        }
    }

    /** What a container's cgroup tells the JVM: its memory limit and its CPU limit. */
    private static List<String> jvmOptions(Container container) {
        List<String> options = new ArrayList<>();
        var limits = container.getResources() == null
                ? null
                : container.getResources().getLimits();
        if (limits != null && limits.get("memory") != null) {
            options.add("-XX:MaxRAM="
                    + Quantity.getAmountInBytes(limits.get("memory")).longValue());
        }
        if (limits != null && limits.get("cpu") != null) {
            int cpus = Math.max(1, (int)
                    Math.ceil(Quantity.getAmountInBytes(limits.get("cpu")).doubleValue()));
            options.add("-XX:ActiveProcessorCount=" + cpus);
        }
        return options;
    }

    /** The container exited: its last state recorded, then finished or restarted after a back-off. */
    void exited(Pod pod, PodState state, ChildJvmPod process) {
        int code = process.exitCode().orElse(-1);
        state.container = null;
        state.ready = false;
        state.started = false;
        state.restarts++;
        state.lastTerminated = new ContainerStatusBuilder()
                .withState(new ContainerStateBuilder()
                        .withNewTerminated()
                        .withExitCode(code)
                        .withReason(code == 0 ? "Completed" : "Error")
                        .withStartedAt(PodEvents.time(state.startedAt))
                        .withFinishedAt(PodEvents.now())
                        .withContainerID(NodeAgent.CONTAINER_ID_SCHEME + process.pid())
                        .endTerminated()
                        .build())
                .build();
        String policy = Objects.requireNonNullElse(pod.getSpec().getRestartPolicy(), "Always");
        if ("Never".equals(policy) || ("OnFailure".equals(policy) && code == 0)) {
            state.finished = true;
            return;
        }
        long backoffMs = Math.min(MAX_BACKOFF.toMillis(), 1_000L << Math.min(5, state.restarts - 1));
        state.notBeforeNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(backoffMs);
        state.waitingReason = "CrashLoopBackOff";
        state.waitingMessage =
                "back-off " + backoffMs / 1000 + "s restarting failed container (exit code " + code + ")";
        LOG.warn(
                "pod {}/{}: container exited with {}; restarting in {} ms",
                state.namespace,
                state.name,
                code,
                backoffMs);
        events.event(pod, "Warning", "BackOff", "Back-off restarting failed container (exit code " + code + ")");
    }

    /** The Pod is being deleted: SIGTERM, the grace period, SIGKILL, then the Pod removed from the API. */
    void terminate(Pod pod, PodState state, Duration grace) {
        ChildJvmPod container = state.container;
        if (container != null && container.alive()) {
            events.event(pod, "Normal", "Killing", "Stopping container (SIGTERM, grace " + grace.toSeconds() + " s)");
            LOG.info(
                    "pod {}/{}: SIGTERM to pid {} (grace {} s)",
                    state.namespace,
                    state.name,
                    container.pid(),
                    grace.toSeconds());
            container.terminate(grace);
        }
        try {
            client.pods()
                    .inNamespace(state.namespace)
                    .withName(state.name)
                    .withGracePeriod(0)
                    .delete();
        } catch (KubernetesClientException e) {
            LOG.debug("final delete of {} failed: {}", state.name, e.getCode());
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
