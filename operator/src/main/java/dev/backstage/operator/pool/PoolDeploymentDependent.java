package dev.backstage.operator.pool;

import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.PodOverrides;
import dev.backstage.operator.workload.PoolResources;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.Matcher;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The pool's workers: a Deployment of the pool's image running the runtime main (the image's own entrypoint),
 * reading the mounted {@code runtime.yaml} and connection URLs from Secrets; the pod itself is
 * {@link WorkerPodSpec}'s. Owned by the pool; drift is overwritten on the next reconcile. Updates that change
 * nothing the pool reads start no reconcile ({@link DeploymentChangeFilter}); those it makes are told as Events
 * ({@link DeploymentUpdates}).
 */
@KubernetesDependent(
        informer =
                @Informer(
                        labelSelector = PoolResources.MANAGED_SELECTOR,
                        onUpdateFilter = DeploymentChangeFilter.class))
public class PoolDeploymentDependent extends CRUDKubernetesDependentResource<Deployment, BackstageWorkerPool> {
    private final MatchMemo<Deployment> matched = new MatchMemo<>(d -> new DeploymentBuilder(d).build());

    public PoolDeploymentDependent() {
        super(Deployment.class);
    }

    @Override
    protected Deployment desired(BackstageWorkerPool pool, Context<BackstageWorkerPool> context) {
        PoolPlan plan = PoolPlan.from(context);
        PodOverrides overrides = pool.getSpec().getPod() == null
                ? new PodOverrides()
                : pool.getSpec().getPod();

        Map<String, String> podLabels = new LinkedHashMap<>();
        if (overrides.getLabels() != null) {
            podLabels.putAll(overrides.getLabels());
        }
        podLabels.putAll(PoolResources.labels(pool));
        Map<String, String> podAnnotations = new LinkedHashMap<>();
        if (overrides.getAnnotations() != null) {
            podAnnotations.putAll(overrides.getAnnotations());
        }
        podAnnotations.put(PoolResources.CONFIG_HASH_ANNOTATION, plan.configHash());

        return new DeploymentBuilder()
                .withNewMetadata()
                .withName(PoolResources.deploymentName(pool))
                .withNamespace(pool.getMetadata().getNamespace())
                .withLabels(PoolResources.labels(pool))
                .withOwnerReferences(PoolResources.controllerReference(pool))
                .endMetadata()
                .withNewSpec()
                .withReplicas(plan.replicas())
                .withStrategy(RolloutStrategy.rollingUpdate())
                .withNewSelector()
                .withMatchLabels(PoolResources.selector(pool))
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .withLabels(podLabels)
                .withAnnotations(podAnnotations)
                .endMetadata()
                .withSpec(WorkerPodSpec.of(pool, plan, overrides))
                .endTemplate()
                .endSpec()
                .build();
    }

    /** Skips the server-side-apply matcher when neither the Deployment nor its desired state changed ({@link MatchMemo}). */
    @Override
    public Matcher.Result<Deployment> match(
            Deployment actual, Deployment desired, BackstageWorkerPool pool, Context<BackstageWorkerPool> context) {
        return matched.match(actual, desired, () -> super.match(actual, desired, pool, context));
    }

    @Override
    public Deployment create(Deployment desired, BackstageWorkerPool pool, Context<BackstageWorkerPool> context) {
        Deployment created = super.create(desired, pool, context);
        PoolPlan plan = PoolPlan.from(context);
        plan.events()
                .normal(
                        pool,
                        "DeploymentCreated",
                        "Created Deployment " + desired.getMetadata().getName()
                                + " with " + plan.replicas() + " replica(s), config " + plan.configHash()
                                + " in ConfigMap "
                                + PoolResources.configMapName(pool));
        return created;
    }

    @Override
    public Deployment update(
            Deployment actual, Deployment desired, BackstageWorkerPool pool, Context<BackstageWorkerPool> context) {
        Deployment updated = super.update(actual, desired, pool, context);
        PoolPlan.from(context)
                .events()
                .normal(pool, DeploymentUpdates.reason(actual, desired), DeploymentUpdates.message(actual, desired));
        return updated;
    }
}
