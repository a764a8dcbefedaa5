package dev.backstage.operator.workload;

import dev.backstage.operator.model.BackstageWorkerPool;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import java.util.LinkedHashMap;
import java.util.Map;

/** Names and labels of the Kubernetes objects a pool owns. */
public final class PoolResources {
    /** Every object the operator creates carries this label; the dependents' informers watch only those. */
    public static final String MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";

    public static final String MANAGED_BY = "backstage-operator";
    public static final String MANAGED_SELECTOR = MANAGED_BY_LABEL + "=" + MANAGED_BY;

    public static final String NAME_LABEL = "app.kubernetes.io/name";
    public static final String WORKER_NAME = "backstage-worker";
    public static final String INSTANCE_LABEL = "app.kubernetes.io/instance";
    public static final String COMPONENT_LABEL = "app.kubernetes.io/component";
    public static final String POOL_LABEL = "backstage.dev/pool";

    /** Pod-template annotation whose change rolls the Deployment when the rendered config changes. */
    public static final String CONFIG_HASH_ANNOTATION = "backstage.dev/config-hash";

    private PoolResources() {}

    /** The Deployment has the pool's own name: what a user looks for with kubectl. */
    public static String deploymentName(BackstageWorkerPool pool) {
        return pool.getMetadata().getName();
    }

    public static String configMapName(BackstageWorkerPool pool) {
        return pool.getMetadata().getName() + "-runtime-config";
    }

    /**
     * The pool as controller of an owned object. JOSDK would add a plain owner reference; a controller reference
     * also shows in {@code kubectl describe} ("Controlled By") and holds foreground deletion of the pool until its
     * workers are gone.
     */
    public static OwnerReference controllerReference(BackstageWorkerPool pool) {
        return new OwnerReferenceBuilder()
                .withApiVersion(pool.getApiVersion())
                .withKind(pool.getKind())
                .withName(pool.getMetadata().getName())
                .withUid(pool.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build();
    }

    /** Labels on the owned objects. */
    public static Map<String, String> labels(BackstageWorkerPool pool) {
        Map<String, String> labels = new LinkedHashMap<>(selector(pool));
        labels.put(MANAGED_BY_LABEL, MANAGED_BY);
        labels.put(COMPONENT_LABEL, "worker");
        return labels;
    }

    /** The Deployment's selector: immutable once created, so it holds only what never changes for a pool. */
    public static Map<String, String> selector(BackstageWorkerPool pool) {
        Map<String, String> selector = new LinkedHashMap<>();
        selector.put(NAME_LABEL, WORKER_NAME);
        selector.put(INSTANCE_LABEL, pool.getMetadata().getName());
        selector.put(POOL_LABEL, pool.getMetadata().getName());
        return selector;
    }
}
