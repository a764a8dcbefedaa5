package dev.backstage.e2e.node;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node itself: the Lease in {@code kube-node-lease} that makes this agent the only one on the cluster (taken at
 * start, renewed every 5 s with the Node's heartbeat, released on close), and the Node object with its capacity,
 * addresses and a Ready condition.
 */
final class NodeRegistration {
    private static final Logger LOG = LoggerFactory.getLogger(NodeRegistration.class);
    static final Duration LEASE_DURATION = Duration.ofSeconds(20);
    private static final String LEASE_NAMESPACE = "kube-node-lease";

    private final KubernetesClient client;
    private final String identity = "node-agent-" + ProcessHandle.current().pid() + "-"
            + UUID.randomUUID().toString().substring(0, 6);
    private long lastLeaseRenewNanos;

    NodeRegistration(KubernetesClient client) {
        this.client = client;
    }

    String identity() {
        return identity;
    }

    /** @throws IllegalStateException when another node agent holds the Lease */
    void takeLease() {
        var leases = client.leases().inNamespace(LEASE_NAMESPACE);
        Lease current = leases.withName(NodeAgent.NODE_NAME).get();
        ZonedDateTime now = ZonedDateTime.now();
        if (current != null
                && current.getSpec().getHolderIdentity() != null
                && !current.getSpec().getHolderIdentity().equals(identity)
                && current.getSpec().getRenewTime() != null
                && current.getSpec()
                        .getRenewTime()
                        .plusSeconds(LEASE_DURATION.toSeconds())
                        .isAfter(now)) {
            throw new IllegalStateException(
                    "another node agent (" + current.getSpec().getHolderIdentity()
                            + ") runs pods on this cluster: stop it (bin/demo --keep, or a test run) or wait "
                            + LEASE_DURATION.toSeconds() + " s after it stopped");
        }
        Lease lease = new LeaseBuilder()
                .withNewMetadata()
                .withName(NodeAgent.NODE_NAME)
                .withNamespace(LEASE_NAMESPACE)
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity(identity)
                .withLeaseDurationSeconds((int) LEASE_DURATION.toSeconds())
                .withRenewTime(now)
                .withAcquireTime(now)
                .endSpec()
                .build();
        if (current == null) {
            leases.resource(lease).create();
        } else {
            lease.getMetadata().setResourceVersion(current.getMetadata().getResourceVersion());
            leases.resource(lease).update(); // conflicts if another agent took it meanwhile
        }
        lastLeaseRenewNanos = System.nanoTime();
    }

    /** Renews the Lease and the Node's heartbeat at most every 5 s; fails when another agent took the Lease. */
    void renewLease() {
        if (System.nanoTime() - lastLeaseRenewNanos < TimeUnit.SECONDS.toNanos(5)) {
            return;
        }
        client.leases()
                .inNamespace(LEASE_NAMESPACE)
                .withName(NodeAgent.NODE_NAME)
                .edit(l -> {
                    if (!identity.equals(l.getSpec().getHolderIdentity())) {
                        throw new IllegalStateException(
                                "node lease taken by " + l.getSpec().getHolderIdentity());
                    }
                    l.getSpec().setRenewTime(ZonedDateTime.now());
                    return l;
                });
        lastLeaseRenewNanos = System.nanoTime();
        client.nodes().withName(NodeAgent.NODE_NAME).editStatus(n -> {
            n.getStatus().getConditions().forEach(c -> c.setLastHeartbeatTime(PodEvents.now()));
            return n;
        });
    }

    /** Gives the node up for the next agent (the Node object stays). */
    void releaseLease() {
        try {
            client.leases()
                    .inNamespace(LEASE_NAMESPACE)
                    .withName(NodeAgent.NODE_NAME)
                    .edit(l -> {
                        if (identity.equals(l.getSpec().getHolderIdentity())) {
                            l.getSpec().setHolderIdentity(null);
                        }
                        return l;
                    });
        } catch (KubernetesClientException e) {
            LOG.debug("lease not released: {}", e.getMessage());
        }
    }

    /** Registers the Node; {@code logPort} is where the API server reaches its log endpoint ({@code kubectl logs}). */
    void registerNode(int logPort) {
        int cpus = Runtime.getRuntime().availableProcessors();
        Map<String, Quantity> capacity = Map.of(
                "cpu",
                new Quantity(Integer.toString(cpus)),
                "memory",
                new Quantity(Long.toString(totalMemory())),
                "pods",
                new Quantity("110"));
        Node node = new NodeBuilder()
                .withNewMetadata()
                .withName(NodeAgent.NODE_NAME)
                .addToLabels("kubernetes.io/hostname", NodeAgent.NODE_NAME)
                .addToLabels("kubernetes.io/os", "linux")
                .addToLabels("kubernetes.io/arch", "amd64")
                .addToLabels("node-role.kubernetes.io/backstage-local", "")
                .endMetadata()
                .withNewSpec()
                .endSpec()
                .build();
        if (client.nodes().withName(NodeAgent.NODE_NAME).get() == null) {
            client.nodes().resource(node).create();
        }
        String version = client.getKubernetesVersion().getGitVersion();
        client.nodes().withName(NodeAgent.NODE_NAME).editStatus(n -> {
            n.setStatus(new NodeStatusBuilder()
                    .withCapacity(capacity)
                    .withAllocatable(capacity)
                    // InternalIP only: the API server dials a node's Hostname address first, and this one's name
                    // resolves nowhere (kubectl logs reaches the log endpoint through this address).
                    .addNewAddress()
                    .withType("InternalIP")
                    .withAddress(NodeAgent.HOST_IP)
                    .endAddress()
                    .addNewCondition()
                    .withType("Ready")
                    .withStatus("True")
                    .withReason("NodeAgentReady")
                    .withMessage("backstage node agent: pods run as JVMs on this machine")
                    .withLastHeartbeatTime(PodEvents.now())
                    .withLastTransitionTime(PodEvents.now())
                    .endCondition()
                    .withNewNodeInfo()
                    .withArchitecture("amd64")
                    .withOperatingSystem("linux")
                    .withOsImage(System.getProperty("os.name") + " " + System.getProperty("os.version"))
                    .withKernelVersion(System.getProperty("os.version"))
                    .withKubeletVersion(version)
                    .withKubeProxyVersion(version)
                    .withContainerRuntimeVersion(NodeAgent.CONTAINER_ID_SCHEME + "java-"
                            + Runtime.version().feature())
                    .withMachineID("")
                    .withSystemUUID("")
                    .withBootID("")
                    .endNodeInfo()
                    .withNewDaemonEndpoints()
                    .withNewKubeletEndpoint()
                    .withPort(logPort)
                    .endKubeletEndpoint()
                    .endDaemonEndpoints()
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
}
