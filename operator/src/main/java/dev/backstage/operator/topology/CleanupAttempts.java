package dev.backstage.operator.topology;

import dev.backstage.operator.model.BackstageTopology;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Counts failed attempts to delete a topology's broker objects, in annotations on the topology itself: a
 * deleted object's status cannot be patched through JOSDK's cleanup, and the count must survive an operator
 * restart, or a broker that never comes back would hold the finalizer (and the namespace) for ever.
 */
public final class CleanupAttempts {
    public static final String COUNT_ANNOTATION = "backstage.dev/cleanup-attempts";
    public static final String LAST_ANNOTATION = "backstage.dev/cleanup-last-attempt";

    private CleanupAttempts() {}

    /** Failed attempts so far (0 when none, or when the annotation was tampered with). */
    public static int count(BackstageTopology topology) {
        String value = annotations(topology).get(COUNT_ANNOTATION);
        try {
            return value == null ? 0 : Math.max(0, Integer.parseInt(value.trim()));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    public static Optional<Instant> last(BackstageTopology topology) {
        String value = annotations(topology).get(LAST_ANNOTATION);
        try {
            return value == null ? Optional.empty() : Optional.of(Instant.parse(value.trim()));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    /** Records one more failed attempt at {@code now}. */
    public static void record(KubernetesClient client, BackstageTopology topology, int attempts, Instant now) {
        client.resources(BackstageTopology.class)
                .inNamespace(topology.getMetadata().getNamespace())
                .withName(topology.getMetadata().getName())
                .edit(t -> {
                    Map<String, String> annotations = t.getMetadata().getAnnotations() == null
                            ? new HashMap<>()
                            : new HashMap<>(t.getMetadata().getAnnotations());
                    annotations.put(COUNT_ANNOTATION, Integer.toString(attempts));
                    annotations.put(LAST_ANNOTATION, now.toString());
                    t.getMetadata().setAnnotations(annotations);
                    return t;
                });
    }

    private static Map<String, String> annotations(BackstageTopology topology) {
        Map<String, String> annotations = topology.getMetadata().getAnnotations();
        return annotations == null ? Map.of() : annotations;
    }
}
