package dev.backstage.operator.events;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes core/v1 Events about our resources (JOSDK 5.2.3 has no recorder). Like client-go's recorder, a repeat
 * of the same reason and message on the same object bumps the existing Event's count instead of adding one,
 * so a failing reconcile that retries does not flood {@code kubectl describe}.
 *
 * <p>An Event is a courtesy to the user: failing to write one is logged and never fails a reconcile.
 * Messages must never contain secrets; callers pass only names and reasons.
 */
public class EventRecorder {
    public static final String NORMAL = "Normal";
    public static final String WARNING = "Warning";

    private static final Logger LOG = LoggerFactory.getLogger(EventRecorder.class);
    private static final int REMEMBERED = 512;
    private static final int MAX_MESSAGE = 1024;

    private final KubernetesClient client;
    private final String component;
    private final String instance;
    private final Clock clock;
    /** Last Event written per (object uid, type, reason, message), for count aggregation. Bounded LRU. */
    private final Map<String, String> recent = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > REMEMBERED;
        }
    };

    public EventRecorder(KubernetesClient client, String component, String instance, Clock clock) {
        this.client = Objects.requireNonNull(client, "client");
        this.component = Objects.requireNonNull(component, "component");
        this.instance = Objects.requireNonNull(instance, "instance");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    public void normal(HasMetadata involved, String reason, String message) {
        record(involved, NORMAL, reason, message);
    }

    public void warning(HasMetadata involved, String reason, String message) {
        record(involved, WARNING, reason, message);
    }

    public void record(HasMetadata involved, String type, String reason, String message) {
        String text = message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE) : message;
        String namespace = involved.getMetadata().getNamespace();
        String key = involved.getMetadata().getUid() + "|" + type + "|" + reason + "|" + text;
        Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
        try {
            String previous;
            synchronized (recent) {
                previous = recent.get(key);
            }
            if (previous != null && bump(namespace, previous, now)) {
                return;
            }
            Event event = new EventBuilder()
                    .withNewMetadata()
                    .withNamespace(namespace)
                    .withName(involved.getMetadata().getName() + "." + Long.toHexString(now.toEpochMilli())
                            + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000)))
                    .endMetadata()
                    .withInvolvedObject(new ObjectReferenceBuilder()
                            .withApiVersion(involved.getApiVersion())
                            .withKind(involved.getKind())
                            .withName(involved.getMetadata().getName())
                            .withNamespace(namespace)
                            .withUid(involved.getMetadata().getUid())
                            .withResourceVersion(involved.getMetadata().getResourceVersion())
                            .build())
                    .withType(type)
                    .withReason(reason)
                    .withMessage(text)
                    .withCount(1)
                    .withFirstTimestamp(now.toString())
                    .withLastTimestamp(now.toString())
                    .withNewSource().withComponent(component).endSource()
                    .withReportingComponent(component)
                    .withReportingInstance(instance)
                    .build();
            Event created = client.v1().events().inNamespace(namespace).resource(event).create();
            synchronized (recent) {
                recent.put(key, created.getMetadata().getName());
            }
        } catch (KubernetesClientException e) {
            if (ApiRefusal.namespaceTerminating(e)) {
                LOG.debug("event {} on {}/{} not recorded: the namespace is being deleted", reason, namespace,
                        involved.getMetadata().getName());
                return;
            }
            LOG.warn("could not record {} event {} on {}/{}: {}", type, reason, namespace,
                    involved.getMetadata().getName(), e.getMessage());
        }
    }

    /** Bumps count and lastTimestamp of an earlier Event; false when it is gone (expired or deleted). */
    private boolean bump(String namespace, String name, Instant now) {
        var resource = client.v1().events().inNamespace(namespace).withName(name);
        Event existing = resource.get();
        if (existing == null) {
            return false;
        }
        int count = existing.getCount() == null ? 1 : existing.getCount();
        resource.edit(e -> new EventBuilder(e).withCount(count + 1).withLastTimestamp(now.toString()).build());
        return true;
    }
}
