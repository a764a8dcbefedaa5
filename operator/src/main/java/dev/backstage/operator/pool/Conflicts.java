package dev.backstage.operator.pool;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.List;

/**
 * Recognises optimistic-locking conflicts, also inside JOSDK's aggregated workflow errors: HTTP 409 with reason
 * {@code Conflict}, or with apimachinery's "the object has been modified" message (the fabric8 mock answers
 * reason {@code Invalid}). Other 409s are no race: AlreadyExists means an object with our name that we do not
 * manage (e.g. a Deployment created by hand) blocks the pool, and the user must hear about it. Also recognises the
 * other routine refusal: a write into a namespace that is being deleted (403, cause {@code NamespaceTerminating}).
 */
final class Conflicts {
    private static final String CONFLICT = "Conflict";
    private static final String MODIFIED = "the object has been modified";

    private Conflicts() {}

    /** True when every failure in {@code e} is a 409 conflict. */
    static boolean isConflict(Exception e) {
        List<Throwable> failures = failures(e);
        return !failures.isEmpty() && failures.stream().allMatch(Conflicts::conflictInChain);
    }

    /** True when every failure in {@code e} is a write refused because the namespace is being deleted. */
    static boolean isNamespaceTerminating(Exception e) {
        List<Throwable> failures = failures(e);
        return !failures.isEmpty() && failures.stream().allMatch(Conflicts::terminatingInChain);
    }

    private static boolean terminatingInChain(Throwable t) {
        for (Throwable cause = t; cause != null; cause = cause.getCause()) {
            if (cause instanceof KubernetesClientException k) {
                return dev.backstage.operator.events.ApiRefusal.namespaceTerminating(k);
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return false;
    }

    static String describe(Exception e) {
        return failures(e).stream()
                .map(t -> t.getClass().getSimpleName())
                .distinct()
                .toList()
                .toString();
    }

    private static List<Throwable> failures(Exception e) {
        return new ArrayList<>(WorkflowFailures.of(e).values());
    }

    private static boolean conflictInChain(Throwable t) {
        for (Throwable cause = t; cause != null; cause = cause.getCause()) {
            if (cause instanceof KubernetesClientException k && k.getCode() == HttpURLConnection.HTTP_CONFLICT) {
                var status = k.getStatus();
                return status != null
                        && (CONFLICT.equals(status.getReason())
                                || (status.getMessage() != null
                                        && status.getMessage().contains(MODIFIED)));
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return false;
    }
}
