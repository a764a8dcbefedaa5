package dev.backstage.e2e.node;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's Events on pods (Scheduled, Started, BackOff, Killing, Unhealthy, Failed), as a kubelet reports them,
 * and the API's time format. An Event that cannot be written is logged at debug and dropped.
 */
final class PodEvents {
    private static final Logger LOG = LoggerFactory.getLogger(PodEvents.class);
    private static final DateTimeFormatter TIME = DateTimeFormatter.ISO_INSTANT;

    private final KubernetesClient client;

    PodEvents(KubernetesClient client) {
        this.client = client;
    }

    void event(Pod pod, String type, String reason, String message) {
        try {
            String ns = pod.getMetadata().getNamespace();
            client.v1()
                    .events()
                    .inNamespace(ns)
                    .resource(new EventBuilder()
                            .withNewMetadata()
                            .withGenerateName(pod.getMetadata().getName() + ".")
                            .withNamespace(ns)
                            .endMetadata()
                            .withInvolvedObject(new ObjectReferenceBuilder()
                                    .withApiVersion("v1")
                                    .withKind("Pod")
                                    .withNamespace(ns)
                                    .withName(pod.getMetadata().getName())
                                    .withUid(pod.getMetadata().getUid())
                                    .build())
                            .withType(type)
                            .withReason(reason)
                            .withMessage(message)
                            .withCount(1)
                            .withFirstTimestamp(now())
                            .withLastTimestamp(now())
                            .withNewSource()
                            .withComponent("backstage-node-agent")
                            .withHost(NodeAgent.NODE_NAME)
                            .endSource()
                            .withReportingComponent("backstage-node-agent")
                            .withReportingInstance(NodeAgent.NODE_NAME)
                            .build())
                    .create();
        } catch (KubernetesClientException e) {
            LOG.debug("event {} not written: {}", reason, e.getMessage());
        }
    }

    /** Now, as the API writes times (whole seconds). */
    static String now() {
        return TIME.format(Instant.now().truncatedTo(ChronoUnit.SECONDS));
    }

    static String time(Instant instant) {
        return instant == null ? null : TIME.format(instant.truncatedTo(ChronoUnit.SECONDS));
    }
}
