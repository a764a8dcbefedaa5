package dev.backstage.operator.topology;

import dev.backstage.operator.model.SecretKeyReference;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Objects;

/**
 * Reads connection URLs from Secrets with the client, on demand. The operator does not watch Secrets (that would
 * cache every Secret of the cluster in its memory); a changed Secret is picked up on the next poll.
 */
public final class ConnectionSecrets {
    private final KubernetesClient client;

    public ConnectionSecrets(KubernetesClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /**
     * The URL the reference points at.
     *
     * @param field the spec field, for messages (e.g. {@code spec.connection})
     * @throws TopologyProblem {@link ReadyReason#SECRET_NOT_FOUND} when the Secret or its key is absent or empty
     */
    public ResolvedSecret resolve(String namespace, String field, SecretKeyReference reference) throws TopologyProblem {
        if (reference == null || reference.getSecretName() == null || reference.getSecretName().isBlank()) {
            throw new TopologyProblem(ReadyReason.INVALID_SPEC, field + ".secretName is not set");
        }
        String key = reference.getKey() == null || reference.getKey().isBlank() ? "url" : reference.getKey();
        Secret secret = client.secrets().inNamespace(namespace).withName(reference.getSecretName()).get();
        if (secret == null) {
            throw new TopologyProblem(ReadyReason.SECRET_NOT_FOUND, "Secret '" + reference.getSecretName()
                    + "' (" + field + ") not found in namespace '" + namespace + "'; create it with key '" + key
                    + "' holding the connection URL");
        }
        String value = null;
        if (secret.getData() != null && secret.getData().get(key) != null) {
            value = new String(Base64.getDecoder().decode(secret.getData().get(key).trim()), StandardCharsets.UTF_8);
        } else if (secret.getStringData() != null) {
            // The API server folds stringData into data; reading it too keeps stores that do not (test doubles) working.
            value = secret.getStringData().get(key);
        }
        if (value == null || value.isBlank()) {
            throw new TopologyProblem(ReadyReason.SECRET_NOT_FOUND, "Secret '" + reference.getSecretName()
                    + "' (" + field + ") has no key '" + key + "' with a connection URL");
        }
        return new ResolvedSecret(value.trim(), secret.getMetadata().getResourceVersion());
    }

    /**
     * A connection URL and the version of the Secret it came from.
     *
     * @param url holds credentials: never log it or put it in status or Events
     */
    public record ResolvedSecret(String url, String resourceVersion) {
        @Override
        public String toString() {
            return "ResolvedSecret[resourceVersion=" + resourceVersion + "]";
        }
    }
}
