package dev.backstage.operator.events;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;

/** Refusals by the API server that are routine, not failures to report. */
public final class ApiRefusal {
    private ApiRefusal() {}

    /** True when {@code e} is a write refused because its namespace is being deleted (403, NamespaceTerminating). */
    public static boolean namespaceTerminating(KubernetesClientException e) {
        return e.getCode() == HttpURLConnection.HTTP_FORBIDDEN
                && e.getStatus() != null
                && e.getStatus().getDetails() != null
                && e.getStatus().getDetails().getCauses() != null
                && e.getStatus().getDetails().getCauses().stream()
                        .anyMatch(c -> "NamespaceTerminating".equals(c.getReason()));
    }
}
