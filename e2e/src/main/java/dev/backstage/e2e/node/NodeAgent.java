package dev.backstage.e2e.node;

import dev.backstage.e2e.kubelet.ChildJvmPod;
import dev.backstage.e2e.kubelet.PodSpecResolver;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node for the local control plane ({@code bin/control-plane}): registers a Node, binds pending Pods to
 * itself (there is no scheduler), runs each container whose image it knows ({@link KnownImages}) as a JVM with
 * the Pod's env, volumes and args, reports phase, conditions and container states, runs the startup, liveness
 * and readiness probes, restarts exited containers with a back-off (restartPolicy), and on deletion sends
 * SIGTERM, waits the Pod's grace period, then SIGKILL, and removes the Pod. An unknown image leaves the Pod
 * Pending with an {@code ErrImagePull} state and a Warning Event saying which images are known. It also
 * forwards each Service's loopback ClusterIP to a ready pod ({@link ServiceProxy}).
 *
 * <p>A container's ID is {@code backstage-local://PID}: the OS process, for a test that kills it with -9.
 * One agent runs per cluster (a Lease in {@code kube-node-lease} says which); a second one fails at start.
 */
public final class NodeAgent implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NodeAgent.class);
    public static final String NODE_NAME = "backstage-local";
    public static final String CONTAINER_ID_SCHEME = "backstage-local://";
    private static final String HOST_IP = "127.0.0.1";
    private static final Duration TICK = Duration.ofMillis(400);
    private static final Duration LEASE_DURATION = Duration.ofSeconds(20);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(20);
    private static final DateTimeFormatter TIME = DateTimeFormatter.ISO_INSTANT;

    private final KubernetesClient client;
    private final Path workDir;
    private final KnownImages images;
    private final String identity = "node-agent-" + ProcessHandle.current().pid() + "-" + UUID.randomUUID().toString().substring(0, 6);
    private final Map<String, PodState> pods = new ConcurrentHashMap<>();
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "node-agent"));
    private final ExecutorService workers = Executors.newCachedThreadPool(r -> daemon(r, "node-agent-work"));
    private final ServiceProxy proxy = new ServiceProxy(this::endpoints);
    private SharedIndexInformer<Pod> podInformer;
    private SharedIndexInformer<Service> serviceInformer;
    private long lastLeaseRenewNanos;

    /** A pod bound to this node, and its one container. */
    private static final class PodState {
        final String uid;
        final String namespace;
        final String name;
        final Instant startTime = Instant.now();
        volatile ChildJvmPod container;
        volatile Map<Integer, Integer> ports = Map.of();
        volatile Instant startedAt;
        volatile boolean ready;
        volatile boolean started;
        volatile boolean terminating;
        volatile boolean finished;
        volatile String waitingReason = "ContainerCreating";
        volatile String waitingMessage;
        volatile ContainerStatus lastTerminated;
        volatile int restarts;
        volatile long notBeforeNanos;
        volatile boolean probing;
        final Map<String, Long> nextProbeNanos = new HashMap<>();
        final Map<String, Integer> failures = new HashMap<>();
        final Map<String, Integer> successes = new HashMap<>();
        String lastStatusJson;
        boolean warnedImage;
        String lastConfigError;

        PodState(Pod pod) {
            this.uid = pod.getMetadata().getUid();
            this.namespace = pod.getMetadata().getNamespace();
            this.name = pod.getMetadata().getName();
        }
    }

    public NodeAgent(KubernetesClient client, Path workDir, KnownImages images) {
        this.client = client;
        this.workDir = workDir;
        this.images = images;
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /**
     * Takes the node (fails when another agent holds it), registers the Node and starts running pods.
     *
     * @throws IllegalStateException when another node agent runs on this cluster
     */
    public NodeAgent start() {
        try {
            Files.createDirectories(workDir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        takeLease();
        registerNode();
        podInformer = client.pods().inAnyNamespace().inform();
        serviceInformer = client.services().inAnyNamespace().inform();
        loop.scheduleWithFixedDelay(() -> {
            try {
                tick();
            } catch (RuntimeException e) {
                LOG.warn("node agent tick failed: {}", e.toString());
            }
        }, 0, TICK.toMillis(), TimeUnit.MILLISECONDS);
        LOG.info("node {} ready ({}; pods under {})", NODE_NAME, identity, workDir);
        return this;
    }

    /** The directory of a pod's files: {@code pod.log} (its container's output) and its volumes. */
    public Path podDir(String namespace, String pod) {
        return workDir.resolve(namespace).resolve(pod);
    }

    // --- the node ---------------------------------------------------------------------------------------------

    private void takeLease() {
        var leases = client.leases().inNamespace("kube-node-lease");
        Lease current = leases.withName(NODE_NAME).get();
        ZonedDateTime now = ZonedDateTime.now();
        if (current != null && current.getSpec().getHolderIdentity() != null
                && !current.getSpec().getHolderIdentity().equals(identity) && current.getSpec().getRenewTime() != null
                && current.getSpec().getRenewTime().plusSeconds(LEASE_DURATION.toSeconds()).isAfter(now)) {
            throw new IllegalStateException("another node agent (" + current.getSpec().getHolderIdentity()
                    + ") runs pods on this cluster: stop it (bin/demo --keep, or a test run) or wait "
                    + LEASE_DURATION.toSeconds() + " s after it stopped");
        }
        Lease lease = new LeaseBuilder().withNewMetadata().withName(NODE_NAME).withNamespace("kube-node-lease").endMetadata()
                .withNewSpec().withHolderIdentity(identity).withLeaseDurationSeconds((int) LEASE_DURATION.toSeconds())
                .withRenewTime(now).withAcquireTime(now).endSpec().build();
        if (current == null) {
            leases.resource(lease).create();
        } else {
            lease.getMetadata().setResourceVersion(current.getMetadata().getResourceVersion());
            leases.resource(lease).update(); // conflicts if another agent took it meanwhile
        }
        lastLeaseRenewNanos = System.nanoTime();
    }

    private void renewLease() {
        if (System.nanoTime() - lastLeaseRenewNanos < TimeUnit.SECONDS.toNanos(5)) {
            return;
        }
        client.leases().inNamespace("kube-node-lease").withName(NODE_NAME).edit(l -> {
            if (!identity.equals(l.getSpec().getHolderIdentity())) {
                throw new IllegalStateException("node lease taken by " + l.getSpec().getHolderIdentity());
            }
            l.getSpec().setRenewTime(ZonedDateTime.now());
            return l;
        });
        lastLeaseRenewNanos = System.nanoTime();
        client.nodes().withName(NODE_NAME).editStatus(n -> {
            n.getStatus().getConditions().forEach(c -> c.setLastHeartbeatTime(now()));
            return n;
        });
    }

    private void registerNode() {
        int cpus = Runtime.getRuntime().availableProcessors();
        Map<String, Quantity> capacity = Map.of("cpu", new Quantity(Integer.toString(cpus)),
                "memory", new Quantity(Long.toString(totalMemory())), "pods", new Quantity("110"));
        Node node = new NodeBuilder().withNewMetadata().withName(NODE_NAME)
                .addToLabels("kubernetes.io/hostname", NODE_NAME).addToLabels("kubernetes.io/os", "linux")
                .addToLabels("kubernetes.io/arch", "amd64").addToLabels("node-role.kubernetes.io/backstage-local", "")
                .endMetadata().withNewSpec().endSpec().build();
        if (client.nodes().withName(NODE_NAME).get() == null) {
            client.nodes().resource(node).create();
        }
        String version = client.getKubernetesVersion().getGitVersion();
        client.nodes().withName(NODE_NAME).editStatus(n -> {
            n.setStatus(new io.fabric8.kubernetes.api.model.NodeStatusBuilder()
                    .withCapacity(capacity).withAllocatable(capacity)
                    .addNewAddress().withType("InternalIP").withAddress(HOST_IP).endAddress()
                    .addNewAddress().withType("Hostname").withAddress(NODE_NAME).endAddress()
                    .addNewCondition().withType("Ready").withStatus("True").withReason("NodeAgentReady")
                    .withMessage("backstage node agent: pods run as JVMs on this machine")
                    .withLastHeartbeatTime(now()).withLastTransitionTime(now()).endCondition()
                    .withNewNodeInfo().withArchitecture("amd64").withOperatingSystem("linux")
                    .withOsImage(System.getProperty("os.name") + " " + System.getProperty("os.version"))
                    .withKernelVersion(System.getProperty("os.version")).withKubeletVersion(version)
                    .withKubeProxyVersion(version).withContainerRuntimeVersion(CONTAINER_ID_SCHEME + "java-"
                            + Runtime.version().feature())
                    .withMachineID("").withSystemUUID("").withBootID("").endNodeInfo()
                    .build());
            return n;
        });
    }

    private static long totalMemory() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            // fall through
        }
        return Runtime.getRuntime().maxMemory();
    }

    // --- the loop ---------------------------------------------------------------------------------------------

    private void tick() {
        renewLease();
        proxy.sync(serviceInformer.getStore().list());
        Set<String> seen = new java.util.HashSet<>();
        for (Pod pod : podInformer.getStore().list()) {
            String nodeName = pod.getSpec().getNodeName();
            if (nodeName == null || nodeName.isEmpty()) {
                bind(pod);
                continue;
            }
            if (!NODE_NAME.equals(nodeName)) {
                continue;
            }
            seen.add(pod.getMetadata().getUid());
            PodState state = pods.computeIfAbsent(pod.getMetadata().getUid(), uid -> new PodState(pod));
            try {
                syncPod(pod, state);
            } catch (RuntimeException e) {
                LOG.warn("pod {}/{}: {}", state.namespace, state.name, e.toString());
            }
        }
        for (PodState gone : List.copyOf(pods.values())) {
            if (!seen.contains(gone.uid)) {
                pods.remove(gone.uid);
                ChildJvmPod container = gone.container;
                if (container != null && container.alive()) {
                    LOG.info("pod {}/{} is gone from the API: killing its container", gone.namespace, gone.name);
                    workers.submit(container::kill);
                }
            }
        }
    }

    private void bind(Pod pod) {
        String scheduler = pod.getSpec().getSchedulerName();
        if (pod.getMetadata().getDeletionTimestamp() != null || (scheduler != null && !"default-scheduler".equals(scheduler))) {
            return;
        }
        try {
            client.bindings().inNamespace(pod.getMetadata().getNamespace()).resource(new BindingBuilder()
                    .withNewMetadata().withName(pod.getMetadata().getName()).withUid(pod.getMetadata().getUid()).endMetadata()
                    .withNewTarget().withApiVersion("v1").withKind("Node").withName(NODE_NAME).endTarget().build()).create();
            event(pod, "Normal", "Scheduled", "Successfully assigned " + pod.getMetadata().getNamespace() + "/"
                    + pod.getMetadata().getName() + " to " + NODE_NAME);
        } catch (KubernetesClientException e) {
            LOG.debug("binding {} failed ({}); next tick retries", pod.getMetadata().getName(), e.getCode());
        }
    }

    private void syncPod(Pod pod, PodState state) {
        if (state.terminating) {
            return;
        }
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            state.terminating = true;
            long grace = Objects.requireNonNullElse(pod.getMetadata().getDeletionGracePeriodSeconds(), 30L);
            workers.submit(() -> terminate(pod, state, Duration.ofSeconds(grace)));
            return;
        }
        Container container = pod.getSpec().getContainers().get(0);
        ChildJvmPod running = state.container;
        if (running != null && !running.alive()) {
            exited(pod, state, running);
            running = null;
        }
        if (running == null && !state.finished && System.nanoTime() >= state.notBeforeNanos) {
            start(pod, state, container);
        }
        if (state.container != null && !state.probing) {
            state.probing = true;
            workers.submit(() -> {
                try {
                    probe(pod, state, container);
                } finally {
                    state.probing = false;
                }
            });
        }
        writeStatus(pod, state, container);
    }

    private void start(Pod pod, PodState state, Container container) {
        Optional<KnownImages.Image> image = images.resolve(container.getImage());
        if (image.isEmpty()) {
            state.waitingReason = "ErrImagePull";
            state.waitingMessage = "image " + container.getImage() + " is not one this node can run; it runs "
                    + String.join(", ", images.names()) + " (any registry and tag)";
            if (!state.warnedImage) {
                state.warnedImage = true;
                event(pod, "Warning", "Failed", "Failed to pull image \"" + container.getImage() + "\": " + state.waitingMessage);
            }
            return;
        }
        Path dir = podDir(state.namespace, state.name);
        try {
            Files.createDirectories(dir);
            PodSpecResolver resolver = new PodSpecResolver(client, state.namespace);
            Map<String, String> env = new LinkedHashMap<>();
            env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
            env.put("HOME", dir.toString());
            env.put("HOSTNAME", state.name);
            env.put("KUBERNETES_SERVICE_HOST", client.getMasterUrl().getHost());
            env.put("KUBERNETES_SERVICE_PORT", Integer.toString(client.getMasterUrl().getPort()));
            env.putAll(resolver.resolve(pod, container, dir, HOST_IP));
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
                throw new IllegalStateException("container command overrides the image's entry point, which this node does not support");
            }
            if (container.getArgs() != null) {
                args.addAll(container.getArgs());
            }
            ChildJvmPod process = ChildJvmPod.start(state.name, jvmOptions(container), image.get().classPath(),
                    image.get().mainClass(), args, env, ports.getOrDefault(8080, 0), dir.resolve("pod.log"));
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
            LOG.info("pod {}/{}: started {} as pid {} (log {})", state.namespace, state.name, image.get().name(),
                    process.pid(), dir.resolve("pod.log"));
            event(pod, "Normal", "Started", "Started container " + container.getName() + " (" + image.get().name()
                    + ", pid " + process.pid() + ")");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            state.waitingReason = "CreateContainerConfigError";
            state.waitingMessage = e.getMessage();
            state.notBeforeNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            if (!Objects.equals(e.getMessage(), state.lastConfigError)) {
                state.lastConfigError = e.getMessage();
                event(pod, "Warning", "Failed", "Error: " + e.getMessage());
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
            env.put("KUBERNETES_NAMESPACE", Files.readString(Path.of(dir, "namespace")).trim());
        } catch (IOException e) {
            // no namespace file: the client uses "default"
        }
    }

    /** What a container's cgroup tells the JVM: its memory limit and its CPU limit. */
    private static List<String> jvmOptions(Container container) {
        List<String> options = new ArrayList<>();
        var limits = container.getResources() == null ? null : container.getResources().getLimits();
        if (limits != null && limits.get("memory") != null) {
            options.add("-XX:MaxRAM=" + Quantity.getAmountInBytes(limits.get("memory")).longValue());
        }
        if (limits != null && limits.get("cpu") != null) {
            int cpus = Math.max(1, (int) Math.ceil(Quantity.getAmountInBytes(limits.get("cpu")).doubleValue()));
            options.add("-XX:ActiveProcessorCount=" + cpus);
        }
        return options;
    }

    private void exited(Pod pod, PodState state, ChildJvmPod process) {
        int code = process.exitCode().orElse(-1);
        state.container = null;
        state.ready = false;
        state.started = false;
        state.restarts++;
        state.lastTerminated = new ContainerStatusBuilder().withState(new ContainerStateBuilder().withNewTerminated()
                .withExitCode(code).withReason(code == 0 ? "Completed" : "Error")
                .withStartedAt(time(state.startedAt)).withFinishedAt(now())
                .withContainerID(CONTAINER_ID_SCHEME + process.pid()).endTerminated().build()).build();
        String policy = Objects.requireNonNullElse(pod.getSpec().getRestartPolicy(), "Always");
        if ("Never".equals(policy) || ("OnFailure".equals(policy) && code == 0)) {
            state.finished = true;
            return;
        }
        long backoffMs = Math.min(MAX_BACKOFF.toMillis(), 1_000L << Math.min(5, state.restarts - 1));
        state.notBeforeNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(backoffMs);
        state.waitingReason = "CrashLoopBackOff";
        state.waitingMessage = "back-off " + backoffMs / 1000 + "s restarting failed container (exit code " + code + ")";
        LOG.warn("pod {}/{}: container exited with {}; restarting in {} ms", state.namespace, state.name, code, backoffMs);
        event(pod, "Warning", "BackOff", "Back-off restarting failed container (exit code " + code + ")");
    }

    private void terminate(Pod pod, PodState state, Duration grace) {
        ChildJvmPod container = state.container;
        if (container != null && container.alive()) {
            event(pod, "Normal", "Killing", "Stopping container (SIGTERM, grace " + grace.toSeconds() + " s)");
            LOG.info("pod {}/{}: SIGTERM to pid {} (grace {} s)", state.namespace, state.name, container.pid(), grace.toSeconds());
            container.terminate(grace);
        }
        try {
            client.pods().inNamespace(state.namespace).withName(state.name).withGracePeriod(0).delete();
        } catch (KubernetesClientException e) {
            LOG.debug("final delete of {} failed: {}", state.name, e.getCode());
        }
    }

    // --- probes -------------------------------------------------------------------------------------------------

    private void probe(Pod pod, PodState state, Container container) {
        ChildJvmPod process = state.container;
        if (process == null || !process.alive()) {
            return;
        }
        if (!state.started) {
            Boolean ok = run("startup", container.getStartupProbe(), container, state);
            if (ok == null) {
                return;
            }
            if (ok) {
                state.started = true;
            } else if (state.failures.getOrDefault("startup", 0) >= threshold(container.getStartupProbe())) {
                unhealthy(pod, state, process, "Startup probe failed");
            }
            return;
        }
        Boolean live = run("liveness", container.getLivenessProbe(), container, state);
        if (Boolean.FALSE.equals(live) && state.failures.getOrDefault("liveness", 0) >= threshold(container.getLivenessProbe())) {
            unhealthy(pod, state, process, "Liveness probe failed");
            return;
        }
        if (container.getReadinessProbe() == null) {
            state.ready = true;
            return;
        }
        Boolean ready = run("readiness", container.getReadinessProbe(), container, state);
        if (Boolean.TRUE.equals(ready)) {
            state.ready = true;
        } else if (Boolean.FALSE.equals(ready)
                && state.failures.getOrDefault("readiness", 0) >= threshold(container.getReadinessProbe())) {
            state.ready = false;
        }
    }

    private void unhealthy(Pod pod, PodState state, ChildJvmPod process, String what) {
        event(pod, "Warning", "Unhealthy", what + "; restarting the container");
        long grace = Objects.requireNonNullElse(pod.getSpec().getTerminationGracePeriodSeconds(), 30L);
        process.terminate(Duration.ofSeconds(grace));
    }

    private static int threshold(Probe probe) {
        return probe == null || probe.getFailureThreshold() == null ? 3 : probe.getFailureThreshold();
    }

    /** Runs a due probe: true/false, or null when none is due (or the probe is not configured: true). */
    private Boolean run(String kind, Probe probe, Container container, PodState state) {
        if (probe == null) {
            return true;
        }
        long now = System.nanoTime();
        Long next = state.nextProbeNanos.get(kind);
        if (next == null) {
            next = state.startedAt == null ? now : now + TimeUnit.SECONDS.toNanos(
                    Objects.requireNonNullElse(probe.getInitialDelaySeconds(), 0));
            state.nextProbeNanos.put(kind, next);
        }
        if (now < next) {
            return null;
        }
        state.nextProbeNanos.put(kind, now + TimeUnit.SECONDS.toNanos(Objects.requireNonNullElse(probe.getPeriodSeconds(), 10)));
        boolean ok;
        if (probe.getHttpGet() != null) {
            int port = localPort(container, probe.getHttpGet().getPort(), state);
            ok = ChildJvmPod.httpProbe(port, Objects.requireNonNullElse(probe.getHttpGet().getPath(), "/"),
                    Duration.ofSeconds(Objects.requireNonNullElse(probe.getTimeoutSeconds(), 1)));
        } else if (probe.getTcpSocket() != null) {
            int port = localPort(container, probe.getTcpSocket().getPort(), state);
            try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
                ok = true;
            } catch (IOException e) {
                ok = false;
            }
        } else {
            ok = true; // exec probes cannot run here: counted as passing, said in the README
        }
        if (ok) {
            state.failures.put(kind, 0);
        } else {
            state.failures.merge(kind, 1, Integer::sum);
        }
        return ok;
    }

    /** The local port of a container port given by number or name. */
    private static int localPort(Container container, IntOrString port, PodState state) {
        int containerPort;
        if (port.getIntVal() != null) {
            containerPort = port.getIntVal();
        } else {
            containerPort = (container.getPorts() == null ? List.<ContainerPort>of() : container.getPorts()).stream()
                    .filter(p -> port.getStrVal().equals(p.getName())).map(ContainerPort::getContainerPort).findFirst()
                    .orElse(-1);
        }
        return state.ports.getOrDefault(containerPort, containerPort);
    }

    /** The ready endpoints of a Service port (the local ports its ready pods serve it on), from a random one on. */
    private List<Integer> endpoints(Service service, ServicePort servicePort) {
        Map<String, String> selector = service.getSpec().getSelector();
        if (selector == null || selector.isEmpty()) {
            return List.of();
        }
        List<Integer> ready = new ArrayList<>();
        for (Pod pod : podInformer.getStore().list()) {
            PodState state = pods.get(pod.getMetadata().getUid());
            Map<String, String> labels = pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
            if (state == null || !state.ready || state.terminating || state.container == null
                    || !service.getMetadata().getNamespace().equals(state.namespace)
                    || !labels.entrySet().containsAll(selector.entrySet())) {
                continue;
            }
            IntOrString target = servicePort.getTargetPort() == null ? new IntOrString(servicePort.getPort())
                    : servicePort.getTargetPort();
            ready.add(localPort(pod.getSpec().getContainers().get(0), target, state));
        }
        java.util.Collections.rotate(ready, ready.isEmpty() ? 0 : (int) (System.nanoTime() % ready.size()));
        return ready;
    }

    // --- status and events ------------------------------------------------------------------------------------

    private void writeStatus(Pod pod, PodState state, Container container) {
        ChildJvmPod process = state.container;
        boolean running = process != null && process.alive();
        String phase = running ? "Running" : state.finished
                ? (state.lastTerminated != null && state.lastTerminated.getState().getTerminated().getExitCode() == 0 ? "Succeeded" : "Failed")
                : state.restarts > 0 ? "Running" : "Pending";
        boolean ready = running && state.ready;
        ContainerStatusBuilder cs = new ContainerStatusBuilder().withName(container.getName()).withImage(container.getImage())
                .withImageID(images.resolve(container.getImage()).map(i -> CONTAINER_ID_SCHEME + i.name()).orElse(""))
                .withReady(ready).withStarted(running && state.started).withRestartCount(state.restarts);
        if (running) {
            cs.withContainerID(CONTAINER_ID_SCHEME + process.pid())
                    .withState(new ContainerStateBuilder().withNewRunning().withStartedAt(time(state.startedAt)).endRunning().build());
        } else if (state.finished && state.lastTerminated != null) {
            cs.withState(state.lastTerminated.getState());
        } else {
            cs.withState(new ContainerStateBuilder().withNewWaiting().withReason(state.waitingReason)
                    .withMessage(state.waitingMessage).endWaiting().build());
        }
        if (state.lastTerminated != null && !state.finished) {
            cs.withLastState(state.lastTerminated.getState());
        }
        List<PodCondition> conditions = new ArrayList<>();
        conditions.add(condition(pod, "PodReadyToStartContainers", true));
        conditions.add(condition(pod, "Initialized", true));
        conditions.add(condition(pod, "Ready", ready));
        conditions.add(condition(pod, "ContainersReady", ready));
        conditions.add(condition(pod, "PodScheduled", true));
        PodStatus status = new PodStatusBuilder().withPhase(phase).withConditions(conditions)
                .withHostIP(HOST_IP).addNewHostIP(HOST_IP).withPodIP(running ? HOST_IP : null)
                .withPodIPs(running ? List.of(new io.fabric8.kubernetes.api.model.PodIP(HOST_IP)) : null)
                .withStartTime(time(state.startTime)).withContainerStatuses(cs.build())
                .withQosClass(pod.getStatus() == null ? null : pod.getStatus().getQosClass()).build();
        String json = Serialization.asJson(status);
        if (json.equals(state.lastStatusJson)) {
            return;
        }
        try {
            client.pods().inNamespace(state.namespace).withName(state.name).editStatus(p -> {
                p.setStatus(status);
                return p;
            });
            state.lastStatusJson = json;
        } catch (KubernetesClientException e) {
            LOG.debug("status of {} not written ({}); next tick retries", state.name, e.getCode());
        }
    }

    /** A condition that keeps its transition time while its status does not change. */
    private static PodCondition condition(Pod pod, String type, boolean value) {
        String status = value ? "True" : "False";
        String since = pod.getStatus() == null || pod.getStatus().getConditions() == null ? null
                : pod.getStatus().getConditions().stream().filter(c -> type.equals(c.getType()) && status.equals(c.getStatus()))
                        .map(PodCondition::getLastTransitionTime).filter(Objects::nonNull).findFirst().orElse(null);
        return new PodConditionBuilder().withType(type).withStatus(status)
                .withLastTransitionTime(since == null ? now() : since).build();
    }

    private void event(Pod pod, String type, String reason, String message) {
        try {
            String ns = pod.getMetadata().getNamespace();
            client.v1().events().inNamespace(ns).resource(new EventBuilder().withNewMetadata()
                    .withGenerateName(pod.getMetadata().getName() + ".").withNamespace(ns).endMetadata()
                    .withInvolvedObject(new ObjectReferenceBuilder().withApiVersion("v1").withKind("Pod").withNamespace(ns)
                            .withName(pod.getMetadata().getName()).withUid(pod.getMetadata().getUid()).build())
                    .withType(type).withReason(reason).withMessage(message).withCount(1)
                    .withFirstTimestamp(now()).withLastTimestamp(now())
                    .withNewSource().withComponent("backstage-node-agent").withHost(NODE_NAME).endSource()
                    .withReportingComponent("backstage-node-agent").withReportingInstance(NODE_NAME).build()).create();
        } catch (KubernetesClientException e) {
            LOG.debug("event {} not written: {}", reason, e.getMessage());
        }
    }

    private static String now() {
        return TIME.format(Instant.now().truncatedTo(ChronoUnit.SECONDS));
    }

    private static String time(Instant instant) {
        return instant == null ? null : TIME.format(instant.truncatedTo(ChronoUnit.SECONDS));
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The pods this agent runs, by namespace/name, with their container's process id (for chaos from outside). */
    public Map<String, OptionalInt> containers() {
        return pods.values().stream().collect(Collectors.toMap(s -> s.namespace + "/" + s.name,
                s -> s.container == null ? OptionalInt.empty() : OptionalInt.of((int) s.container.pid())));
    }

    /** Stops every container (SIGTERM, then SIGKILL after 10 s) and gives the node up; the Pods stay in the API. */
    @Override
    public void close() {
        loop.shutdownNow();
        proxy.close();
        List<Runnable> stops = new ArrayList<>();
        pods.values().forEach(s -> {
            ChildJvmPod c = s.container;
            if (c != null) {
                stops.add(() -> c.terminate(Duration.ofSeconds(10)));
            }
        });
        stops.forEach(workers::submit);
        workers.shutdown();
        try {
            workers.awaitTermination(15, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (podInformer != null) {
            podInformer.close();
            serviceInformer.close();
        }
        try {
            client.leases().inNamespace("kube-node-lease").withName(NODE_NAME).edit(l -> {
                if (identity.equals(l.getSpec().getHolderIdentity())) {
                    l.getSpec().setHolderIdentity(null);
                }
                return l;
            });
        } catch (KubernetesClientException e) {
            LOG.debug("lease not released: {}", e.getMessage());
        }
    }
}
