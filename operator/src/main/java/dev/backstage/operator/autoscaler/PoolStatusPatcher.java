package dev.backstage.operator.autoscaler;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.backstage.operator.model.BackstageWorkerPool;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.HttpURLConnection;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a change to a pool's status as a JSON patch on the status subresource ({@link StatusJsonPatch}), only when
 * the change is not empty, and only the status fields that changed, so fields the pool reconciler owns are left
 * alone. The patch carries the {@code resourceVersion} it was computed from: if anyone wrote the pool in between,
 * the API server answers 409 and the change is recomputed from a fresh read. The first attempt starts from the
 * caller's copy (the informer's), sparing a GET per poll.
 */
final class PoolStatusPatcher {
    private static final Logger LOG = LoggerFactory.getLogger(PoolStatusPatcher.class);
    static final int ATTEMPTS = 4;

    private final KubernetesClient client;

    PoolStatusPatcher(KubernetesClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /** The change's result and the pool as written ({@code null} when nothing needed writing). */
    record Written<T>(T result, BackstageWorkerPool pool) {}

    /**
     * Applies {@code change} to a copy of the pool and writes the status difference.
     *
     * @param known  the newest copy the caller has (not modified)
     * @param change mutates the copy's status; its result is handed back (it may depend on the copy's state,
     *               e.g. the replicas the decision starts from, so it is re-run on every attempt)
     * @return empty when the pool no longer exists or every attempt met a conflict
     */
    <T> Optional<Written<T>> update(BackstageWorkerPool known, Function<BackstageWorkerPool, T> change) {
        String namespace = known.getMetadata().getNamespace();
        String name = known.getMetadata().getName();
        var resource = client.resources(BackstageWorkerPool.class).inNamespace(namespace).withName(name);
        BackstageWorkerPool base = known;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            if (base == null) {
                return Optional.empty(); // deleted
            }
            BackstageWorkerPool copy = Serialization.clone(base);
            JsonNode before = Serialization.jsonMapper().valueToTree(copy.getStatus());
            T result = change.apply(copy);
            JsonNode after = Serialization.jsonMapper().valueToTree(copy.getStatus());
            if (before.isNull()) {
                // No status yet: the pool reconciler writes the first one (it adds the whole object).
                return Optional.of(new Written<>(result, null));
            }
            ArrayNode patch = StatusJsonPatch.between(before, after, copy.getMetadata().getResourceVersion());
            if (patch.isEmpty()) {
                return Optional.of(new Written<>(result, null));
            }
            try {
                BackstageWorkerPool written = resource.subresource("status")
                        .patch(PatchContext.of(PatchType.JSON), patch.toString());
                return Optional.of(new Written<>(result, written));
            } catch (KubernetesClientException e) {
                if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
                    return Optional.empty();
                }
                if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                    throw e;
                }
                // Someone wrote the pool since our copy: recompute from what is there now.
                LOG.debug("status of pool {}/{} changed underneath (attempt {}); re-reading", namespace, name, attempt);
                base = resource.get();
            }
        }
        LOG.info("status of pool {}/{} not written: {} write conflicts in a row; the next poll tries again", namespace,
                name, ATTEMPTS);
        return Optional.empty();
    }
}
