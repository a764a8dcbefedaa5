package dev.backstage.operator.pool;

import dev.backstage.operator.events.EventRecorder;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.workload.DeploymentReplicas;
import dev.backstage.runtime.config.RuntimeConfigFiles;
import dev.backstage.runtime.logging.LogSettings;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * What one reconcile of a pool wants, computed once by the reconciler and handed to the dependents through
 * the workflow context (so the ConfigMap and the Deployment agree on the same rendered config and hash).
 *
 * @param runtimeYaml the rendered {@code runtime.yaml}
 * @param configHash  a short digest of {@code runtimeYaml}; a pod-template annotation, so a change rolls the pods
 * @param replicas    the Deployment's replicas, from {@link DeploymentReplicas}
 * @param events      where dependents report what they created or changed
 * @param workerLogging the operator's log level and format for workers ({@code BACKSTAGE_LOG_*} in the container)
 */
public record PoolPlan(
        BackstageTopology topology,
        String runtimeYaml,
        String configHash,
        int replicas,
        EventRecorder events,
        LogSettings workerLogging) {

    public static PoolPlan of(
            BackstageWorkerPool pool, BackstageTopology topology, EventRecorder events, LogSettings workerLogging) {
        String yaml = RuntimeConfigFiles.render(RuntimeConfigRenderer.render(pool, topology));
        return new PoolPlan(topology, yaml, hash(yaml), DeploymentReplicas.of(pool), events, workerLogging);
    }

    /** The plan the reconciler put into this reconcile's workflow context. */
    public static PoolPlan from(Context<BackstageWorkerPool> context) {
        return context.managedWorkflowAndDependentResourceContext().getMandatory(PoolPlan.class, PoolPlan.class);
    }

    /** Hands this plan to the dependents of this reconcile. */
    public void attachTo(Context<BackstageWorkerPool> context) {
        context.managedWorkflowAndDependentResourceContext().put(PoolPlan.class, this);
    }

    static String hash(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
