package dev.backstage.operator.status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.HttpURLConnection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a change to a custom resource's status as a JSON patch on the status subresource ({@link StatusJsonPatch}),
 * only when the change is not empty, and only the status fields that changed, so the fields its reconciler owns are
 * left alone. Used by the writers that run beside a reconciler: the autoscaler (a pool's backlog and scaling fields)
 * and the schedule firing ({@code status.schedules} of a topology). The patch carries the {@code resourceVersion} it
 * was computed from: if anyone wrote the resource in between, the API server answers 409 (or 422, when the copy is
 * old enough that the patch no longer applies) and the change is recomputed from a fresh read. The first attempt
 * starts from the caller's copy (the informer's), sparing a GET per poll. Each patcher writes only the fields its
 * writer owns ({@link StatusFields}): a change to any other is refused before it reaches the API server.
 */
public final class StatusPatcher<R extends CustomResource<?, ?>> {
    private static final Logger LOG = LoggerFactory.getLogger(StatusPatcher.class);
    static final int ATTEMPTS = 4;
    private static final int UNPROCESSABLE = 422;

    private final KubernetesClient client;
    private final Class<R> type;
    private final StatusFields owned;

    /** @param owned the status fields this writer owns; it may change no other */
    public StatusPatcher(KubernetesClient client, Class<R> type, StatusFields owned) {
        this.client = Objects.requireNonNull(client, "client");
        this.type = Objects.requireNonNull(type, "type");
        this.owned = Objects.requireNonNull(owned, "owned");
    }

    /** The resource as the API server has it now; null when it no longer exists. */
    public R read(R known) {
        return client.resources(type)
                .inNamespace(known.getMetadata().getNamespace())
                .withName(known.getMetadata().getName())
                .get();
    }

    /** The change's result and the resource as written ({@code null} when nothing needed writing). */
    public record Written<R, T>(T result, R resource) {}

    /**
     * Applies {@code change} to a copy of the pool and writes the status difference.
     *
     * @param known  the newest copy the caller has (not modified)
     * @param change mutates the copy's status; its result is handed back (it may depend on the copy's state,
     *               e.g. the replicas the decision starts from, so it is re-run on every attempt). The copy's status
     *               is its own; its metadata and spec are {@code known}'s, for reading only
     * @return empty when the pool no longer exists or every attempt met a conflict
     * @throws IllegalStateException when {@code change} touched a status field this writer does not own (a bug)
     */
    public <T> Optional<Written<R, T>> update(R known, Function<R, T> change) {
        String namespace = known.getMetadata().getNamespace();
        String name = known.getMetadata().getName();
        var resource = client.resources(type).inNamespace(namespace).withName(name);
        R base = known;
        KubernetesClientException last = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            if (base == null) {
                return Optional.empty(); // deleted
            }
            JsonNode before = Serialization.jsonMapper().valueToTree(base.getStatus());
            R copy = statusCopy(base, before);
            T result = change.apply(copy);
            JsonNode after = Serialization.jsonMapper().valueToTree(copy.getStatus());
            if (before.isNull()) {
                // No status yet: the reconciler writes the first one (it adds the whole object).
                return Optional.of(new Written<>(result, null));
            }
            ArrayNode patch =
                    StatusJsonPatch.between(before, after, copy.getMetadata().getResourceVersion());
            if (patch.isEmpty()) {
                return Optional.of(new Written<>(result, null));
            }
            List<String> foreign = owned.foreignChanges(before, after);
            if (!foreign.isEmpty()) {
                throw new IllegalStateException("status of " + type.getSimpleName() + " " + namespace + "/" + name
                        + " not written: the change touches " + foreign + ", which this writer does not own (it owns "
                        + owned.fields() + " and the conditions " + owned.conditionTypes() + ")");
            }
            try {
                R written = resource.subresource("status").patch(PatchContext.of(PatchType.JSON), patch.toString());
                return Optional.of(new Written<>(result, written));
            } catch (KubernetesClientException e) {
                if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
                    return Optional.empty();
                }
                if (e.getCode() != HttpURLConnection.HTTP_CONFLICT && e.getCode() != UNPROCESSABLE) {
                    throw e;
                }
                // 409: someone wrote the resource since our copy. 422: our copy is so old that the patch does not
                // apply (it removes a member that is gone, or adds under a status the server does not have yet);
                // the API server says so before it compares resourceVersions. Either way, recompute from what is
                // there now; a copy that stays stale would otherwise fail the same way at every poll.
                LOG.debug(
                        "status of {} {}/{} changed underneath (attempt {}, HTTP {}); re-reading",
                        type.getSimpleName(),
                        namespace,
                        name,
                        attempt,
                        e.getCode());
                last = e;
                base = resource.get();
            }
        }
        LOG.info(
                "status of {} {}/{} not written: {} attempts from fresh reads failed, the last with HTTP {}: {}; the "
                        + "next poll tries again",
                type.getSimpleName(),
                namespace,
                name,
                ATTEMPTS,
                last.getCode(),
                last.getMessage());
        return Optional.empty();
    }

    /**
     * A resource whose status is a copy of {@code base}'s ({@code status}, its JSON) and whose metadata and spec are
     * {@code base}'s own. Copying only the status spares a serialization round trip of the metadata (managed fields
     * included) and spec on every poll: at 1,000 pools polled every 5 s, whole-object clones were the largest part of
     * the autoscaler's CPU ({@code bin/bench operator-scale}, JFR).
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private R statusCopy(R base, JsonNode status) {
        R copy;
        try {
            copy = type.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(type + " needs a public no-argument constructor", e);
        }
        copy.setMetadata(base.getMetadata());
        ((CustomResource) copy).setSpec(base.getSpec());
        if (base.getStatus() != null) {
            try {
                ((CustomResource) copy)
                        .setStatus(Serialization.jsonMapper()
                                .treeToValue(status, base.getStatus().getClass()));
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalStateException("cannot copy the status of " + type.getSimpleName(), e);
            }
        }
        return copy;
    }
}
