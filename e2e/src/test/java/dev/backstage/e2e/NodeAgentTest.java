package dev.backstage.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.e2e.cluster.LocalCluster;
import dev.backstage.e2e.node.NodeAgent;
import dev.backstage.testsupport.ControlPlane;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The node agent as the API server sees it: a Node that is Ready, a Pod of an image it cannot run left Pending
 * with the reason and a Warning Event, a deleted Pod removed once its container is stopped, and {@code kubectl logs}
 * answered from the node's log endpoint.
 */
@Tag("slow")
@Tag("cluster")
class NodeAgentTest {

    @Test
    void givenAPodOfAnUnknownImage_whenScheduled_thenItStaysPendingWithErrImagePullAndAnEventSayingWhy() {
        LocalCluster cluster = LocalCluster.shared();
        KubernetesClient client = cluster.client();
        String ns = UniqueNames.prefix("e2e-node");
        cluster.kubectl("create", "namespace", ns).orThrow();
        try {
            var node = client.nodes().withName(NodeAgent.NODE_NAME).get();
            assertTrue(
                    node.getStatus().getConditions().stream()
                            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus())),
                    "node Ready");

            cluster.kubectlWithInput("""
                    apiVersion: v1
                    kind: Pod
                    metadata: {name: web}
                    spec:
                      terminationGracePeriodSeconds: 5
                      containers: [{name: web, image: "nginx:1.27"}]
                    """, "apply", "-n", ns, "-f", "-").orThrow();
            Pod pending = await("the pod bound and waiting on its image")
                    .atMost(Duration.ofMinutes(1))
                    .until(
                            () -> client.pods().inNamespace(ns).withName("web").get(),
                            p -> waiting(p) != null
                                    && "ErrImagePull"
                                            .equals(waiting(p)
                                                    .getState()
                                                    .getWaiting()
                                                    .getReason()));
            assertEquals(NodeAgent.NODE_NAME, pending.getSpec().getNodeName());
            assertEquals("Pending", pending.getStatus().getPhase());
            assertTrue(
                    waiting(pending).getState().getWaiting().getMessage().contains("backstage-sample-tasks"),
                    "the message names the images this node runs");
            List<Event> events = await("a Warning event")
                    .atMost(Duration.ofSeconds(30))
                    .until(
                            () -> client.v1().events().inNamespace(ns).list().getItems(),
                            list -> list.stream().anyMatch(e -> "Failed".equals(e.getReason())));
            assertTrue(events.stream()
                    .anyMatch(
                            e -> "Warning".equals(e.getType()) && e.getMessage().contains("nginx:1.27")));

            cluster.kubectl("delete", "pod", "web", "-n", ns, "--timeout=60s").orThrow();
            assertEquals(null, client.pods().inNamespace(ns).withName("web").get(), "the pod is gone once deleted");
        } finally {
            cluster.kubectl("delete", "namespace", ns, "--wait=false");
        }
    }

    @Test
    void givenARunningPod_whenKubectlLogsAsksForIt_thenTheApiServerGetsItsOutputFromTheNode() {
        LocalCluster cluster = LocalCluster.shared();
        KubernetesClient client = cluster.client();
        String ns = UniqueNames.prefix("e2e-logs");
        cluster.kubectl("create", "namespace", ns).orThrow();
        try {
            // The operator image: its first line is known. Without rights in this namespace it goes on logging.
            cluster.kubectlWithInput("""
                    apiVersion: v1
                    kind: Pod
                    metadata: {name: talker}
                    spec:
                      terminationGracePeriodSeconds: 5
                      containers:
                        - name: operator
                          image: backstage-operator:0.1.0
                          env: [{name: BACKSTAGE_LEADER_ELECTION, value: "false"}, {name: WATCH_NAMESPACES, value: %s}]
                    """.formatted(ns), "apply", "-n", ns, "-f", "-")
                    .orThrow();
            java.util.concurrent.atomic.AtomicReference<String> said =
                    new java.util.concurrent.atomic.AtomicReference<>();
            await("the pod's first line in kubectl logs")
                    .atMost(Duration.ofMinutes(2))
                    .pollInterval(Duration.ofSeconds(1))
                    .conditionEvaluationListener(e -> {
                        if (!e.isSatisfied()) {
                            System.out.println("kubectl logs: " + said.get());
                        }
                    })
                    .until(() -> {
                        ControlPlane.Result logs = cluster.kubectl("logs", "talker", "-n", ns);
                        said.set(logs.exit() + " " + logs.err().strip());
                        return logs.out().contains("starting Backstage operator");
                    });
            ControlPlane.Result tail = cluster.kubectl("logs", "talker", "-n", ns, "--tail=1");
            assertEquals(0, tail.exit(), tail.err());
            assertEquals(1, tail.out().strip().lines().count(), "--tail=1 gives one line: " + tail.out());
            ControlPlane.Result missing = cluster.kubectl("logs", "nothing-here", "-n", ns);
            assertTrue(missing.exit() != 0 && missing.err().contains("not found"), missing.err());
        } finally {
            cluster.kubectl("delete", "namespace", ns, "--wait=false");
        }
    }

    private static ContainerStatus waiting(Pod pod) {
        if (pod == null || pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
            return null;
        }
        return pod.getStatus().getContainerStatuses().stream()
                .filter(c -> c.getState() != null && c.getState().getWaiting() != null)
                .findFirst()
                .orElse(null);
    }
}
