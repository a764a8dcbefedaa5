package dev.backstage.operator.admission;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.DeletionPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Objects;

/**
 * Admission of a topology's DELETE: allowed, with a warning that names the pools that still use it (kubectl prints
 * it as {@code Warning: ...}). Never refused: a namespace being deleted takes its pools and topologies together,
 * and a refusal there would only stall it. With {@code deletionPolicy: delete} the warning says that the pools'
 * queues and their jobs go with it.
 */
public final class TopologyDeletionCheck {
    private static final int LISTED = 10;
    private final KubernetesClient client;

    public TopologyDeletionCheck(KubernetesClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /** @param deleted the stored topology the request deletes */
    public Verdict check(BackstageTopology deleted, String namespace) {
        Verdict verdict = new Verdict();
        String name = deleted.getMetadata().getName();
        List<String> pools =
                client.resources(BackstageWorkerPool.class).inNamespace(namespace).list().getItems().stream()
                        .filter(p -> p.getSpec() != null
                                && p.getSpec().getTopologyRef() != null
                                && name.equals(p.getSpec().getTopologyRef().getName()))
                        .map(p -> p.getMetadata().getName())
                        .sorted()
                        .toList();
        if (pools.isEmpty()) {
            return verdict;
        }
        String listed = String.join(", ", pools.subList(0, Math.min(LISTED, pools.size())))
                + (pools.size() > LISTED ? " and " + (pools.size() - LISTED) + " more" : "");
        boolean deletes = deleted.getSpec() != null && deleted.getSpec().getDeletionPolicy() == DeletionPolicy.DELETE;
        verdict.warn("BackstageTopology '" + name + "' is still used by pool(s) " + listed + ": "
                + (deletes
                        ? "deletionPolicy delete removes their queues and the jobs in them; "
                        : "their queues and jobs stay on the broker (deletionPolicy retain); ")
                + "the pools keep their workers and report Ready=False TopologyNotFound until a topology of that name"
                + " exists again");
        return verdict;
    }
}
