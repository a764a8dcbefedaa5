package dev.backstage.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.backstage.e2e.node.NodeAgent;
import dev.backstage.e2e.sandbox.RealSandbox;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.Conditions;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What {@link ChartUpgradeTest} reads from the API server: the example's topology {@code shop-redis} and pool
 * {@code shop-workers} in a namespace, their worker Deployment and pod, and the operator's own pods.
 */
final class UpgradeView {
    private static final String POOL = "shop-workers";
    private static final String TOPOLOGY = "shop-redis";

    private final KubernetesClient client;

    UpgradeView(KubernetesClient client) {
        this.client = client;
    }

    BackstageWorkerPool pool(String ns) {
        return client.resources(BackstageWorkerPool.class)
                .inNamespace(ns)
                .withName(POOL)
                .get();
    }

    Deployment deployment(String ns) {
        return client.apps().deployments().inNamespace(ns).withName(POOL).get();
    }

    /** Topology and pool Ready, the Deployment with its one replica ready. */
    boolean ready(String ns) {
        BackstageTopology topology = client.resources(BackstageTopology.class)
                .inNamespace(ns)
                .withName(TOPOLOGY)
                .get();
        BackstageWorkerPool pool = pool(ns);
        Deployment deployment = deployment(ns);
        return topology != null
                && topology.getStatus() != null
                && Conditions.isTrue(topology.getStatus().getConditions(), Conditions.READY)
                && pool != null
                && pool.getStatus() != null
                && Conditions.isTrue(pool.getStatus().getConditions(), Conditions.READY)
                && deployment != null
                && deployment.getStatus() != null
                && Integer.valueOf(1).equals(deployment.getStatus().getReadyReplicas());
    }

    /** The pool's one live worker pod (fails when there are more or none). */
    Pod workerPod(String ns) {
        List<Pod> pods = client.pods().inNamespace(ns).withLabel("backstage.dev/pool", POOL).list().getItems().stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .toList();
        assertEquals(
                1,
                pods.size(),
                "one worker pod: "
                        + pods.stream().map(p -> p.getMetadata().getName()).toList());
        return pods.get(0);
    }

    /** The pool's {@code status.deadLetters.total}; -1 while it has none. */
    long deadLetters(String ns) {
        BackstageWorkerPool pool = pool(ns);
        if (pool == null || pool.getStatus() == null || pool.getStatus().getDeadLetters() == null) {
            return -1;
        }
        Long total = pool.getStatus().getDeadLetters().getTotal();
        return total == null ? -1 : total;
    }

    /** True once the pool's status heartbeat was written after {@code instant}. */
    boolean heartbeatAfter(String ns, Instant instant) {
        BackstageWorkerPool pool = pool(ns);
        String heartbeat = pool == null || pool.getStatus() == null
                ? null
                : pool.getStatus().getHeartbeatTime();
        return heartbeat != null && Instant.parse(heartbeat).isAfter(instant);
    }

    Deployment operatorDeployment() {
        return client.apps()
                .deployments()
                .inNamespace(RealSandbox.OPERATOR_NAMESPACE)
                .withName(RealSandbox.RELEASE)
                .get();
    }

    private List<Pod> operatorPods() {
        return client.pods()
                .inNamespace(RealSandbox.OPERATOR_NAMESPACE)
                .withLabels(operatorDeployment().getSpec().getSelector().getMatchLabels())
                .list()
                .getItems();
    }

    Set<String> operatorUids() {
        Set<String> uids = new LinkedHashSet<>();
        operatorPods().forEach(p -> uids.add(p.getMetadata().getUid()));
        return uids;
    }

    /**
     * True when every operator pod (none terminating, as many as the Deployment asks for) is ready and runs
     * {@code image}, and the node reports it ran the build that {@code image} names (its image ID: the node's name
     * for the build, {@code backstage-operator} for this tree's, {@code backstage-operator:pinned-…} for a pinned one).
     */
    boolean operatorsRunOnly(String image, String nodeImageName) {
        List<Pod> pods = operatorPods();
        Integer wanted = operatorDeployment().getSpec().getReplicas();
        return !pods.isEmpty()
                && Integer.valueOf(pods.size()).equals(wanted)
                && pods.stream()
                        .allMatch(p -> p.getMetadata().getDeletionTimestamp() == null
                                && image.equals(
                                        p.getSpec().getContainers().get(0).getImage())
                                && p.getStatus().getContainerStatuses() != null
                                && !p.getStatus().getContainerStatuses().isEmpty()
                                && (NodeAgent.CONTAINER_ID_SCHEME + nodeImageName)
                                        .equals(p.getStatus()
                                                .getContainerStatuses()
                                                .get(0)
                                                .getImageID())
                                && p.getStatus().getConditions().stream()
                                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus())));
    }

    static int restarts(Pod pod) {
        return pod.getStatus().getContainerStatuses().get(0).getRestartCount();
    }

    /** The Deployment's {@code deployment.kubernetes.io/revision} (how many pod templates it has rolled out). */
    static long revision(Deployment deployment) {
        return Long.parseLong(deployment.getMetadata().getAnnotations().get("deployment.kubernetes.io/revision"));
    }

    /** The lines of the pod template that differ, {@code -} before and {@code +} after; empty when it is the same. */
    static String templateDiff(Deployment before, Deployment after) {
        if (before.getSpec().getTemplate().equals(after.getSpec().getTemplate())) {
            return "";
        }
        List<String> a =
                Serialization.asYaml(before.getSpec().getTemplate()).lines().toList();
        List<String> b =
                Serialization.asYaml(after.getSpec().getTemplate()).lines().toList();
        StringBuilder diff = new StringBuilder();
        a.stream()
                .filter(line -> !b.contains(line))
                .forEach(line -> diff.append("- ").append(line).append('\n'));
        b.stream()
                .filter(line -> !a.contains(line))
                .forEach(line -> diff.append("+ ").append(line).append('\n'));
        return diff.length() == 0 ? "(the same lines in another order)" : diff.toString();
    }
}
