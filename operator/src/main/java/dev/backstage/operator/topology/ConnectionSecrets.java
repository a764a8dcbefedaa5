package dev.backstage.operator.topology;

import dev.backstage.operator.model.SecretKeyReference;
import dev.backstage.operator.model.TlsSpec;
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
     * The PEM files a tls section names, read now (so a rotated Secret is seen on the next connect).
     *
     * @param field the spec field, for messages (e.g. {@code spec.tls})
     * @throws TopologyProblem {@link ReadyReason#SECRET_NOT_FOUND} when a Secret or key is absent or empty
     */
    public TlsMaterial resolveTls(String namespace, String field, TlsSpec tls) throws TopologyProblem {
        if (tls == null) {
            return TlsMaterial.NONE;
        }
        String ca = null;
        if (tls.getCaBundle() != null) {
            String key = tls.getCaBundle().getKey() == null ? "ca.crt" : tls.getCaBundle().getKey();
            ca = value(namespace, field + ".caBundle", tls.getCaBundle().getSecretName(), key, "the PEM CA bundle");
        }
        String certificate = null;
        String key = null;
        if (tls.getClientCertificateSecret() != null) {
            certificate = value(namespace, field + ".clientCertificateSecret", tls.getClientCertificateSecret(), "tls.crt",
                    "the PEM client certificate");
            key = value(namespace, field + ".clientCertificateSecret", tls.getClientCertificateSecret(), "tls.key",
                    "the PEM private key");
        }
        return new TlsMaterial(ca, certificate, key);
    }

    private String value(String namespace, String field, String name, String key, String what) throws TopologyProblem {
        Secret secret = client.secrets().inNamespace(namespace).withName(name).get();
        if (secret == null) {
            throw new TopologyProblem(ReadyReason.SECRET_NOT_FOUND, "Secret '" + name + "' (" + field
                    + ") not found in namespace '" + namespace + "'; create it with key '" + key + "' holding " + what);
        }
        String value = null;
        if (secret.getData() != null && secret.getData().get(key) != null) {
            value = new String(Base64.getDecoder().decode(secret.getData().get(key).trim()), StandardCharsets.UTF_8);
        } else if (secret.getStringData() != null) {
            value = secret.getStringData().get(key);
        }
        if (value == null || value.isBlank()) {
            throw new TopologyProblem(ReadyReason.SECRET_NOT_FOUND, "Secret '" + name + "' (" + field + ") has no key '"
                    + key + "' with " + what);
        }
        return value;
    }

    /**
     * The PEM texts of a tls section; each null when not configured.
     *
     * @param key a private key: never log it or put it in status or Events
     */
    public record TlsMaterial(String caBundle, String certificate, String key) {
        public static final TlsMaterial NONE = new TlsMaterial(null, null, null);

        public boolean isEmpty() {
            return caBundle == null && certificate == null;
        }

        @Override
        public String toString() {
            return "TlsMaterial[ca=" + (caBundle != null) + ", clientCertificate=" + (certificate != null) + "]";
        }
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
