package dev.backstage.operator.pool;

import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.workload.PoolResources;
import dev.backstage.operator.workload.WorkerContainer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.Matcher;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;

/** The pool's rendered {@code runtime.yaml}, mounted into the workers. Owned by the pool. */
@KubernetesDependent(informer = @Informer(labelSelector = PoolResources.MANAGED_SELECTOR))
public class PoolConfigMapDependent extends CRUDKubernetesDependentResource<ConfigMap, BackstageWorkerPool> {
    private final MatchMemo<ConfigMap> matched = new MatchMemo<>(d -> new ConfigMapBuilder(d).build());

    public PoolConfigMapDependent() {
        super(ConfigMap.class);
    }

    @Override
    protected ConfigMap desired(BackstageWorkerPool pool, Context<BackstageWorkerPool> context) {
        PoolPlan plan = PoolPlan.from(context);
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withName(PoolResources.configMapName(pool))
                .withNamespace(pool.getMetadata().getNamespace())
                .withLabels(PoolResources.labels(pool))
                .withOwnerReferences(PoolResources.controllerReference(pool))
                .endMetadata()
                .addToData(WorkerContainer.CONFIG_FILE, plan.runtimeYaml())
                .build();
    }

    /** Skips the server-side-apply matcher when neither the ConfigMap nor its desired state changed ({@link MatchMemo}). */
    @Override
    public Matcher.Result<ConfigMap> match(
            ConfigMap actual, ConfigMap desired, BackstageWorkerPool pool, Context<BackstageWorkerPool> context) {
        return matched.match(actual, desired, () -> super.match(actual, desired, pool, context));
    }

    // No Event of its own on create: the ConfigMap is created with the Deployment, whose DeploymentCreated names it.

    @Override
    public ConfigMap update(
            ConfigMap actual, ConfigMap desired, BackstageWorkerPool pool, Context<BackstageWorkerPool> context) {
        ConfigMap updated = super.update(actual, desired, pool, context);
        PoolPlan plan = PoolPlan.from(context);
        plan.events()
                .normal(
                        pool,
                        "ConfigUpdated",
                        "Updated ConfigMap " + desired.getMetadata().getName() + " (config " + plan.configHash() + ")");
        return updated;
    }
}
