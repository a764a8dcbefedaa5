package dev.backstage.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.e2e.cluster.LocalCluster;
import dev.backstage.e2e.node.NodeAgent;
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
 * with the reason and a Warning Event, and a deleted Pod removed once its container is stopped.
 */
@Tag("slow")
class NodeAgentTest {

    @Test
    void givenAPodOfAnUnknownImageWhenScheduledThenItStaysPendingWithErrImagePullAndAnEventSayingWhy() {
        LocalCluster cluster = LocalCluster.shared();
        KubernetesClient client = cluster.client();
        String ns = UniqueNames.prefix("e2e-node");
        cluster.kubectl("create", "namespace", ns).orThrow();
        try {
            var node = client.nodes().withName(NodeAgent.NODE_NAME).get();
            assertTrue(node.getStatus().getConditions().stream()
                    .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus())), "node Ready");

            cluster.kubectlWithInput("""
                    apiVersion: v1
                    kind: Pod
                    metadata: {name: web}
                    spec:
                      terminationGracePeriodSeconds: 5
                      containers: [{name: web, image: "nginx:1.27"}]
                    """, "apply", "-n", ns, "-f", "-").orThrow();
            Pod pending = await("the pod bound and waiting on its image").atMost(Duration.ofMinutes(1))
                    .until(() -> client.pods().inNamespace(ns).withName("web").get(), p -> waiting(p) != null
                            && "ErrImagePull".equals(waiting(p).getState().getWaiting().getReason()));
            assertEquals(NodeAgent.NODE_NAME, pending.getSpec().getNodeName());
            assertEquals("Pending", pending.getStatus().getPhase());
            assertTrue(waiting(pending).getState().getWaiting().getMessage().contains("backstage-sample-tasks"),
                    "the message names the images this node runs");
            List<Event> events = await("a Warning event").atMost(Duration.ofSeconds(30)).until(() -> client.v1().events()
                    .inNamespace(ns).list().getItems(), list -> list.stream().anyMatch(e -> "Failed".equals(e.getReason())));
            assertTrue(events.stream().anyMatch(e -> "Warning".equals(e.getType()) && e.getMessage().contains("nginx:1.27")));

            cluster.kubectl("delete", "pod", "web", "-n", ns, "--timeout=60s").orThrow();
            assertEquals(null, client.pods().inNamespace(ns).withName("web").get(), "the pod is gone once deleted");
        } finally {
            cluster.kubectl("delete", "namespace", ns, "--wait=false");
        }
    }

    private static ContainerStatus waiting(Pod pod) {
        if (pod == null || pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
            return null;
        }
        return pod.getStatus().getContainerStatuses().stream().filter(c -> c.getState() != null
                && c.getState().getWaiting() != null).findFirst().orElse(null);
    }
}
