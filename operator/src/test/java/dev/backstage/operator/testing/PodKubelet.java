package dev.backstage.operator.testing;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * The one part of a kubelet the operator's real-API-server tests need: it reports a namespace's pods Running and
 * Ready through their status subresource, as a kubelet does once the readiness probe passes. The real ReplicaSet
 * and Deployment controllers then count them. The e2e module runs real pods; here no container is started.
 */
public final class PodKubelet {
    private final KubernetesClient client;
    private final String namespace;

    public PodKubelet(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
    }

    /** Marks every pod of the namespace that is not yet Ready as Running and Ready; returns how many it marked. */
    public int markAllReady() {
        int marked = 0;
        List<Pod> pods = client.pods().inNamespace(namespace).list().getItems();
        for (Pod pod : pods) {
            if (pod.getMetadata().getDeletionTimestamp() != null || ready(pod)) {
                continue;
            }
            String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
            PodStatus status = pod.getStatus() == null ? new PodStatus() : pod.getStatus();
            status.setPhase("Running");
            status.setStartTime(now);
            status.setConditions(List.of(
                    new PodConditionBuilder()
                            .withType("Ready")
                            .withStatus("True")
                            .withLastTransitionTime(now)
                            .build(),
                    new PodConditionBuilder()
                            .withType("ContainersReady")
                            .withStatus("True")
                            .withLastTransitionTime(now)
                            .build()));
            pod.setStatus(status);
            try {
                client.pods().inNamespace(namespace).resource(pod).updateStatus();
                marked++;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 && e.getCode() != 404) {
                    throw e;
                }
                // changed or gone since the list: the next call sees the new version
            }
        }
        return marked;
    }

    private static boolean ready(Pod pod) {
        return pod.getStatus() != null
                && pod.getStatus().getConditions() != null
                && pod.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }
}
