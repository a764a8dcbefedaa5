/**
 * The worker pool reconciler: a BackstageWorkerPool becomes a ConfigMap (the runtime.yaml) and a Deployment of the
 * worker pod ({@code WorkerPodSpec}), owned by the pool, with the replica count from
 * {@code workload.DeploymentReplicas}. It owns the pool's Ready condition and rollout fields of status; change
 * filters keep it from reconciling on updates that change nothing it reads.
 */
package dev.backstage.operator.pool;
