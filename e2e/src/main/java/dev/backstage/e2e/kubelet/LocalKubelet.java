package dev.backstage.e2e.kubelet;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A kubelet and deployment controller for one namespace of the mock API: every Deployment replica becomes
 * a child JVM running the runtime's container main from the pod template (its rendered ConfigMap, its env
 * with Secret values), and {@code Deployment.status} is kept true (replicas, ready, updated, observed
 * generation). Scale-in sends SIGTERM and waits {@code terminationGracePeriodSeconds}; a pod that dies is
 * replaced, as a ReplicaSet would. A changed pod template replaces the pods (Recreate).
 */
public final class LocalKubelet implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LocalKubelet.class);
    private static final Duration SYNC_EVERY = Duration.ofMillis(300);

    private record Running(ChildJvmPod pod, String templateHash) {}

    /** Per Deployment: consecutive crashes and when the next start is allowed (like CrashLoopBackOff). */
    private static final class Backoff {
        int crashes;
        long notBeforeNanos;
    }

    private final KubernetesClient client;
    private final String namespace;
    private final Path workDir;
    private final PodSpecResolver resolver;
    private final Map<String, List<Running>> pods = new ConcurrentHashMap<>();
    private final Map<String, Backoff> backoffs = new ConcurrentHashMap<>();
    private final ScheduledExecutorService loop =
            Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "local-kubelet"));
    private final ExecutorService terminator = Executors.newCachedThreadPool(r -> daemon(r, "local-kubelet-terminate"));
    private final AtomicInteger started = new AtomicInteger();
    private final AtomicInteger replaced = new AtomicInteger();

    public LocalKubelet(KubernetesClient client, String namespace, Path workDir) {
        this.client = client;
        this.namespace = namespace;
        this.workDir = workDir;
        this.resolver = new PodSpecResolver(client, namespace);
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    public LocalKubelet start() {
        loop.scheduleWithFixedDelay(
                () -> {
                    try {
                        sync();
                    } catch (RuntimeException e) {
                        log.warn(
                                "local kubelet sync failed: {}; next sync in {} ms",
                                e.toString(),
                                SYNC_EVERY.toMillis());
                    }
                },
                0,
                SYNC_EVERY.toMillis(),
                TimeUnit.MILLISECONDS);
        return this;
    }

    /** The live replicas of a Deployment. */
    public List<LocalPod> pods(String deployment) {
        List<LocalPod> out = new ArrayList<>();
        pods.getOrDefault(deployment, List.of()).forEach(r -> out.add(r.pod()));
        return out;
    }

    /** OS process id of a replica, for chaos (kill -9) from outside. */
    public long pid(LocalPod pod) {
        return ((ChildJvmPod) pod).pid();
    }

    public int podsStarted() {
        return started.get();
    }

    /** Replicas that died on their own (or were killed) and were replaced. */
    public int podsReplaced() {
        return replaced.get();
    }

    private void sync() {
        Set<String> seen = new HashSet<>();
        for (Deployment deployment :
                client.apps().deployments().inNamespace(namespace).list().getItems()) {
            String name = deployment.getMetadata().getName();
            seen.add(name);
            syncDeployment(deployment, pods.computeIfAbsent(name, n -> new CopyOnWriteArrayList<>()));
        }
        for (String gone : new ArrayList<>(pods.keySet())) {
            if (!seen.contains(gone)) {
                pods.remove(gone).forEach(r -> terminateAsync(r.pod(), Duration.ofSeconds(30)));
            }
        }
    }

    private void syncDeployment(Deployment deployment, List<Running> running) {
        int desired = deployment.getSpec().getReplicas() == null
                ? 1
                : deployment.getSpec().getReplicas();
        String hash = Integer.toHexString(
                Serialization.asJson(deployment.getSpec().getTemplate()).hashCode());
        Duration grace = Duration.ofSeconds(Objects.requireNonNullElse(
                deployment.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds(), 30L));
        for (Running r : List.copyOf(running)) {
            if (!r.pod().alive()) {
                running.remove(r);
                replaced.incrementAndGet();
                Backoff backoff =
                        backoffs.computeIfAbsent(deployment.getMetadata().getName(), n -> new Backoff());
                long waitMs = Math.min(30_000, 1_000L << Math.min(5, backoff.crashes++));
                backoff.notBeforeNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
                log.warn(
                        "pod {} exited; replacing it in {} ms (see its pod.log)",
                        r.pod().name(),
                        waitMs);
            } else if (!r.templateHash().equals(hash)) {
                running.remove(r);
                terminateAsync(r.pod(), grace);
            }
        }
        while (running.size() > desired) {
            Running newest = running.remove(running.size() - 1);
            terminateAsync(newest.pod(), grace);
        }
        Backoff backoff = backoffs.get(deployment.getMetadata().getName());
        boolean mayStart = backoff == null || System.nanoTime() >= backoff.notBeforeNanos;
        while (mayStart && running.size() < desired) {
            running.add(new Running(launch(deployment), hash));
        }
        if (backoff != null && running.stream().anyMatch(r -> r.pod().ready())) {
            backoff.crashes = 0; // healthy again
        }
        writeStatus(deployment, running);
    }

    private ChildJvmPod launch(Deployment deployment) {
        String podName = deployment.getMetadata().getName() + "-"
                + UUID.randomUUID().toString().substring(0, 5);
        Path podDir = workDir.resolve(podName);
        try {
            Files.createDirectories(podDir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        var spec = deployment.getSpec().getTemplate().getSpec();
        Container container = spec.getContainers().get(0);
        Map<String, String> env = resolver.resolve(spec, container, podName, podDir);
        started.incrementAndGet();
        log.info("starting pod {} (log {})", podName, podDir.resolve("pod.log"));
        return ChildJvmPod.start(podName, env, freePort(), podDir.resolve("pod.log"));
    }

    private void terminateAsync(LocalPod pod, Duration grace) {
        log.info("terminating pod {} (SIGTERM, grace {} s)", pod.name(), grace.toSeconds());
        terminator.submit(() -> pod.terminate(grace));
    }

    private void writeStatus(Deployment deployment, List<Running> running) {
        int ready = (int) running.stream().filter(r -> r.pod().ready()).count();
        DeploymentStatus status = new DeploymentStatusBuilder()
                .withReplicas(running.size())
                .withUpdatedReplicas(running.size())
                .withReadyReplicas(ready)
                .withAvailableReplicas(ready)
                .withObservedGeneration(deployment.getMetadata().getGeneration())
                .build();
        DeploymentStatus current = deployment.getStatus();
        if (current != null
                && Objects.equals(current.getReplicas(), status.getReplicas())
                && Objects.equals(current.getReadyReplicas(), status.getReadyReplicas())
                && Objects.equals(current.getObservedGeneration(), status.getObservedGeneration())) {
            return;
        }
        deployment.setStatus(status);
        try {
            client.apps()
                    .deployments()
                    .inNamespace(namespace)
                    .resource(deployment)
                    .updateStatus();
        } catch (KubernetesClientException e) {
            log.debug(
                    "status of {} not written ({}); next sync retries",
                    deployment.getMetadata().getName(),
                    e.getCode());
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        loop.shutdownNow();
        pods.values()
                .forEach(list ->
                        list.forEach(r -> terminator.submit(() -> r.pod().terminate(Duration.ofSeconds(10)))));
        terminator.shutdown();
        try {
            terminator.awaitTermination(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
