package dev.backstage.e2e.node;

import dev.backstage.e2e.kubelet.ChildJvmPod;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
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
 * forwards each Service's loopback ClusterIP to a ready pod ({@link ServiceProxy}), and serves the kubelet's port
 * ({@code KubeletServer}): its log endpoint, so {@code kubectl logs} works ({@code PodLogServer}), and its
 * port-forward endpoint, so {@code kubectl port-forward} works ({@code PortForwardSession}).
 *
 * <p>This class is the loop (every 400 ms: renew the node, sync the Services, bind, sync each Pod, forget the gone)
 * and the pods' table; each concern is a class of its own ({@code NodeRegistration}, {@code PodBinder},
 * {@code PodProcesses}, {@code PodProbes}, {@code PodStatusWriter}, {@code PodEvents}).
 *
 * <p>A container's ID is {@code backstage-local://PID}: the OS process, for a test that kills it with -9.
 * One agent runs per cluster (a Lease in {@code kube-node-lease} says which); a second one fails at start.
 */
public final class NodeAgent implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NodeAgent.class);
    public static final String NODE_NAME = "backstage-local";
    public static final String CONTAINER_ID_SCHEME = "backstage-local://";
    static final String HOST_IP = "127.0.0.1";
    private static final Duration TICK = Duration.ofMillis(400);

    private final KubernetesClient client;
    private final Path workDir;
    private final Map<String, PodState> pods = new ConcurrentHashMap<>();
    private final ScheduledExecutorService loop =
            Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "node-agent"));
    private final ExecutorService workers = Executors.newCachedThreadPool(r -> daemon(r, "node-agent-work"));
    private final ServiceProxy proxy = new ServiceProxy(this::endpoints);
    private final NodeRegistration node;
    private final PodBinder binder;
    private final PodProcesses processes;
    private final PodProbes probes;
    private final PodStatusWriter status;
    private SharedIndexInformer<Pod> podInformer;
    private SharedIndexInformer<Service> serviceInformer;
    private PodLogServer logs;
    private KubeletServer kubelet;

    public NodeAgent(KubernetesClient client, Path workDir, KnownImages images) {
        this.client = client;
        this.workDir = workDir;
        PodEvents events = new PodEvents(client);
        this.node = new NodeRegistration(client);
        this.binder = new PodBinder(client, events);
        this.processes = new PodProcesses(client, images, events, this::podDir);
        this.probes = new PodProbes(events);
        this.status = new PodStatusWriter(client, images);
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
        node.takeLease();
        try {
            logs = new PodLogServer(
                    this::podDir,
                    (namespace, pod) -> pods.values().stream()
                            .anyMatch(s -> s.namespace.equals(namespace)
                                    && s.name.equals(pod)
                                    && s.container != null
                                    && s.container.alive()));
            kubelet = new KubeletServer(logs.port(), this::podPorts);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        node.registerNode(kubelet.port());
        podInformer = client.pods().inAnyNamespace().inform();
        serviceInformer = client.services().inAnyNamespace().inform();
        loop.scheduleWithFixedDelay(
                () -> {
                    try {
                        tick();
                    } catch (RuntimeException e) {
                        LOG.warn("node agent tick failed: {}", e.toString());
                    }
                },
                0,
                TICK.toMillis(),
                TimeUnit.MILLISECONDS);
        LOG.info("node {} ready ({}; pods under {})", NODE_NAME, node.identity(), workDir);
        return this;
    }

    /** The directory of a pod's files: {@code pod.log} (its container's output) and its volumes. */
    public Path podDir(String namespace, String pod) {
        return workDir.resolve(namespace).resolve(pod);
    }

    private void tick() {
        node.renewLease();
        proxy.sync(serviceInformer.getStore().list());
        Set<String> seen = new HashSet<>();
        for (Pod pod : podInformer.getStore().list()) {
            String nodeName = pod.getSpec().getNodeName();
            if (nodeName == null || nodeName.isEmpty()) {
                binder.bind(pod);
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

    private void syncPod(Pod pod, PodState state) {
        if (state.terminating) {
            return;
        }
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            state.terminating = true;
            long grace = Objects.requireNonNullElse(pod.getMetadata().getDeletionGracePeriodSeconds(), 30L);
            workers.submit(() -> processes.terminate(pod, state, Duration.ofSeconds(grace)));
            return;
        }
        Container container = pod.getSpec().getContainers().get(0);
        ChildJvmPod running = state.container;
        if (running != null && !running.alive()) {
            processes.exited(pod, state, running);
            running = null;
        }
        if (running == null && !state.finished && System.nanoTime() >= state.notBeforeNanos) {
            processes.start(pod, state, container);
        }
        if (state.container != null && !state.probing) {
            state.probing = true;
            workers.submit(() -> {
                try {
                    probes.probe(pod, state, container);
                } finally {
                    state.probing = false;
                }
            });
        }
        status.write(pod, state, container);
    }

    /** The container port → local port map of a pod whose container runs here ({@link PodPorts}). */
    private Optional<Map<Integer, Integer>> podPorts(String namespace, String pod) {
        return pods.values().stream()
                .filter(s -> s.namespace.equals(namespace)
                        && s.name.equals(pod)
                        && !s.terminating
                        && s.container != null
                        && s.container.alive())
                .findFirst()
                .map(s -> s.ports);
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
            Map<String, String> labels = pod.getMetadata().getLabels() == null
                    ? Map.of()
                    : pod.getMetadata().getLabels();
            if (state == null
                    || !state.ready
                    || state.terminating
                    || state.container == null
                    || !service.getMetadata().getNamespace().equals(state.namespace)
                    || !labels.entrySet().containsAll(selector.entrySet())) {
                continue;
            }
            IntOrString target = servicePort.getTargetPort() == null
                    ? new IntOrString(servicePort.getPort())
                    : servicePort.getTargetPort();
            ready.add(PodProbes.localPort(pod.getSpec().getContainers().get(0), target, state));
        }
        java.util.Collections.rotate(ready, ready.isEmpty() ? 0 : (int) (System.nanoTime() % ready.size()));
        return ready;
    }

    /** The pods this agent runs, by namespace/name, with their container's process id (for chaos from outside). */
    public Map<String, OptionalInt> containers() {
        return pods.values().stream()
                .collect(Collectors.toMap(
                        s -> s.namespace + "/" + s.name,
                        s -> s.container == null ? OptionalInt.empty() : OptionalInt.of((int) s.container.pid())));
    }

    /** Stops every container (SIGTERM, then SIGKILL after 10 s) and gives the node up; the Pods stay in the API. */
    @Override
    public void close() {
        loop.shutdownNow();
        proxy.close();
        if (kubelet != null) {
            kubelet.close();
        }
        if (logs != null) {
            logs.close();
        }
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
        node.releaseLease();
    }
}
