package dev.backstage.e2e.node;

import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduler's one decision on a one-node cluster: a pending Pod of the default scheduler is bound to this node
 * (a Binding, as kube-scheduler writes it) with a Scheduled Event. A Pod of another scheduler or being deleted is
 * left alone; a failed binding is retried on the next tick.
 */
final class PodBinder {
    private static final Logger LOG = LoggerFactory.getLogger(PodBinder.class);

    private final KubernetesClient client;
    private final PodEvents events;

    PodBinder(KubernetesClient client, PodEvents events) {
        this.client = client;
        this.events = events;
    }

    void bind(Pod pod) {
        String scheduler = pod.getSpec().getSchedulerName();
        if (pod.getMetadata().getDeletionTimestamp() != null
                || (scheduler != null && !"default-scheduler".equals(scheduler))) {
            return;
        }
        try {
            client.bindings()
                    .inNamespace(pod.getMetadata().getNamespace())
                    .resource(new BindingBuilder()
                            .withNewMetadata()
                            .withName(pod.getMetadata().getName())
                            .withUid(pod.getMetadata().getUid())
                            .endMetadata()
                            .withNewTarget()
                            .withApiVersion("v1")
                            .withKind("Node")
                            .withName(NodeAgent.NODE_NAME)
                            .endTarget()
                            .build())
                    .create();
            events.event(
                    pod,
                    "Normal",
                    "Scheduled",
                    "Successfully assigned " + pod.getMetadata().getNamespace() + "/"
                            + pod.getMetadata().getName() + " to " + NodeAgent.NODE_NAME);
        } catch (KubernetesClientException e) {
            LOG.debug(
                    "binding {} failed ({}); next tick retries",
                    pod.getMetadata().getName(),
                    e.getCode());
        }
    }
}
