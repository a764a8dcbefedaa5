package dev.backstage.operator.broker;

import dev.backstage.operator.model.ReadyReason;
import dev.backstage.operator.model.SecretKeyReference;
import dev.backstage.operator.model.TlsSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Reads connection URLs and TLS material from Secrets with the client, on demand. The operator does not watch Secrets
 * (that would cache every Secret of the cluster in its memory); a changed Secret is picked up on the next poll.
 *
 * <p>One instance serves the topology reconciler, the backlog probes and the schedule firing, and keeps each Secret
 * it read (by namespace and name, with its resourceVersion) for {@code maxAge}: topologies sharing a Secret, and the
 * reconciler and the probes of one topology, cost one GET per {@code maxAge} instead of one per reader and poll
 * (at 1,000 topologies: 50 GET/s). Readers asking while a GET is under way wait for it. A Secret that is absent, or
 * a failed GET, is not kept: the next read asks again, so a Secret created after an error is seen on the next poll.
 */
public final class ConnectionSecrets {
    /** Reads one Secret; null when it does not exist. */
    @FunctionalInterface
    public interface SecretReader {
        Secret read(String namespace, String name);
    }

    private record Read(CompletableFuture<Secret> secret, Instant startedAt) {
        boolean freshAt(Instant now, Duration maxAge) {
            return !secret.isDone() || now.isBefore(startedAt.plus(maxAge));
        }
    }

    private final SecretReader reader;
    private final Clock clock;
    private final Duration maxAge;
    private final ConcurrentMap<String, Read> reads = new ConcurrentHashMap<>();

    /** Reads every Secret afresh (nothing kept). */
    public ConnectionSecrets(KubernetesClient client) {
        this(client, Clock.systemUTC(), Duration.ZERO);
    }

    /** @param maxAge how long a read Secret is used before it is read again (the topology poll interval) */
    public ConnectionSecrets(KubernetesClient client, Clock clock, Duration maxAge) {
        this(
                (namespace, name) ->
                        client.secrets().inNamespace(namespace).withName(name).get(),
                clock,
                maxAge);
        Objects.requireNonNull(client, "client");
    }

    public ConnectionSecrets(SecretReader reader, Clock clock, Duration maxAge) {
        this.reader = Objects.requireNonNull(reader, "reader");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.maxAge = Objects.requireNonNull(maxAge, "maxAge");
        if (maxAge.isNegative()) {
            throw new IllegalArgumentException("maxAge must not be negative, got " + maxAge);
        }
    }

    /**
     * The same Secrets read afresh every time, for what must not act on a Secret edited a moment ago (deleting a
     * topology's broker objects with the credentials it names now).
     */
    public ConnectionSecrets uncached() {
        return maxAge.isZero() ? this : new ConnectionSecrets(reader, clock, Duration.ZERO);
    }

    /**
     * The URL the reference points at.
     *
     * @param field the spec field, for messages (e.g. {@code spec.connection})
     * @throws TopologyProblem {@link ReadyReason#SECRET_NOT_FOUND} when the Secret or its key is absent or empty
     */
    public ResolvedSecret resolve(String namespace, String field, SecretKeyReference reference) throws TopologyProblem {
        if (reference == null
                || reference.getSecretName() == null
                || reference.getSecretName().isBlank()) {
            throw new TopologyProblem(ReadyReason.INVALID_SPEC, field + ".secretName is not set");
        }
        String key = reference.getKey() == null || reference.getKey().isBlank() ? "url" : reference.getKey();
        Secret secret = secret(namespace, reference.getSecretName());
        if (secret == null) {
            throw new TopologyProblem(
                    ReadyReason.SECRET_NOT_FOUND,
                    "Secret '" + reference.getSecretName()
                            + "' (" + field + ") not found in namespace '" + namespace + "'; create it with key '" + key
                            + "' holding the connection URL");
        }
        String value = null;
        if (secret.getData() != null && secret.getData().get(key) != null) {
            value = new String(
                    Base64.getDecoder().decode(secret.getData().get(key).trim()), StandardCharsets.UTF_8);
        } else if (secret.getStringData() != null) {
            // The API server folds stringData into data; reading it too keeps stores that do not (test doubles)
            // working.
            value = secret.getStringData().get(key);
        }
        if (value == null || value.isBlank()) {
            throw new TopologyProblem(
                    ReadyReason.SECRET_NOT_FOUND,
                    "Secret '" + reference.getSecretName() + "' (" + field + ") has no key '" + key
                            + "' with a connection URL");
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
            String key = tls.getCaBundle().getKey() == null
                    ? "ca.crt"
                    : tls.getCaBundle().getKey();
            ca = value(namespace, field + ".caBundle", tls.getCaBundle().getSecretName(), key, "the PEM CA bundle");
        }
        String certificate = null;
        String key = null;
        if (tls.getClientCertificateSecret() != null) {
            certificate = value(
                    namespace,
                    field + ".clientCertificateSecret",
                    tls.getClientCertificateSecret(),
                    "tls.crt",
                    "the PEM client certificate");
            key = value(
                    namespace,
                    field + ".clientCertificateSecret",
                    tls.getClientCertificateSecret(),
                    "tls.key",
                    "the PEM private key");
        }
        return new TlsMaterial(ca, certificate, key);
    }

    private String value(String namespace, String field, String name, String key, String what) throws TopologyProblem {
        Secret secret = secret(namespace, name);
        if (secret == null) {
            throw new TopologyProblem(
                    ReadyReason.SECRET_NOT_FOUND,
                    "Secret '" + name + "' (" + field + ") not found in namespace '" + namespace
                            + "'; create it with key '" + key + "' holding " + what);
        }
        String value = null;
        if (secret.getData() != null && secret.getData().get(key) != null) {
            value = new String(
                    Base64.getDecoder().decode(secret.getData().get(key).trim()), StandardCharsets.UTF_8);
        } else if (secret.getStringData() != null) {
            value = secret.getStringData().get(key);
        }
        if (value == null || value.isBlank()) {
            throw new TopologyProblem(
                    ReadyReason.SECRET_NOT_FOUND,
                    "Secret '" + name + "' (" + field + ") has no key '" + key + "' with " + what);
        }
        return value;
    }

    /**
     * The Secret, from a read started less than {@code maxAge} ago or from a new GET; null when it does not exist.
     * Concurrent readers of one Secret share one GET.
     */
    private Secret secret(String namespace, String name) {
        String key = namespace + "/" + name;
        Instant now = clock.instant();
        CompletableFuture<Secret> mine = new CompletableFuture<>();
        Read read =
                reads.compute(key, (k, kept) -> kept != null && kept.freshAt(now, maxAge) ? kept : new Read(mine, now));
        if (read.secret() == mine) {
            reads.values().removeIf(kept -> !kept.freshAt(now, maxAge)); // Secrets nobody asked for in maxAge
            try {
                Secret secret = reader.read(namespace, name);
                if (secret == null) {
                    reads.remove(key, read); // absent now; whoever creates it should not wait for maxAge
                }
                mine.complete(secret);
            } catch (RuntimeException e) {
                reads.remove(key, read);
                mine.completeExceptionally(e);
            }
        }
        try {
            return read.secret().join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
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
