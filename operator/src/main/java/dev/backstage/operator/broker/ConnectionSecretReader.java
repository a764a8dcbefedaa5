package dev.backstage.operator.broker;

import dev.backstage.operator.model.SecretKeyReference;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Objects;

/**
 * Reads a connection URL from the Secret a topology names, with a plain GET when asked. Secrets are not
 * watched: an informer would cache every Secret of the watched namespaces in the operator's memory, and a
 * connection URL changes rarely; {@link ProbeProviders} re-reads it on a slow interval instead.
 */
public final class ConnectionSecretReader {
    private final KubernetesClient client;

    public ConnectionSecretReader(KubernetesClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /**
     * @throws BrokerConnectionException {@link BrokerConnectionException#SECRET_NOT_FOUND} when the Secret or its
     *                                   key is absent or empty
     */
    public ConnectionUrl read(String namespace, SecretKeyReference reference) throws BrokerConnectionException {
        if (reference == null || reference.getSecretName() == null || reference.getSecretName().isBlank()) {
            throw new BrokerConnectionException(BrokerConnectionException.SECRET_NOT_FOUND,
                    "the topology names no connection Secret (spec.connection.secretName)", null);
        }
        String key = reference.getKey() == null || reference.getKey().isBlank() ? "url" : reference.getKey();
        Secret secret = client.secrets().inNamespace(namespace).withName(reference.getSecretName()).get();
        if (secret == null) {
            throw new BrokerConnectionException(BrokerConnectionException.SECRET_NOT_FOUND, "Secret '"
                    + reference.getSecretName() + "' (spec.connection of the topology) not found in namespace '"
                    + namespace + "'", null);
        }
        String value = null;
        if (secret.getData() != null && secret.getData().get(key) != null) {
            value = new String(Base64.getDecoder().decode(secret.getData().get(key).trim()), StandardCharsets.UTF_8);
        } else if (secret.getStringData() != null) {
            // The API server folds stringData into data; test doubles may not.
            value = secret.getStringData().get(key);
        }
        if (value == null || value.isBlank()) {
            throw new BrokerConnectionException(BrokerConnectionException.SECRET_NOT_FOUND, "Secret '"
                    + reference.getSecretName() + "' has no key '" + key + "' with a connection URL", null);
        }
        return new ConnectionUrl(value.trim(), secret.getMetadata().getResourceVersion());
    }

    /**
     * A connection URL and the Secret version it was read from.
     *
     * @param url holds credentials: never log it, nor put it in status or Events
     */
    public record ConnectionUrl(String url, String secretVersion) {
        @Override
        public String toString() {
            return "ConnectionUrl[secretVersion=" + secretVersion + "]";
        }
    }
}
