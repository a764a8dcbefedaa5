/**
 * Facts about a pool's pods that several controllers share: how many replicas its Deployment runs
 * ({@link dev.backstage.operator.workload.DeploymentReplicas}), the pod resources and owner references of what a pool
 * owns ({@link dev.backstage.operator.workload.PoolResources}), and the operator's side of the runtime container
 * contract ({@link dev.backstage.operator.workload.WorkerContainer}: mount paths, env var names, probe paths). A leaf:
 * it sees only {@code model}, so the pool reconciler, the autoscaler and broker access can all read it.
 */
package dev.backstage.operator.workload;
