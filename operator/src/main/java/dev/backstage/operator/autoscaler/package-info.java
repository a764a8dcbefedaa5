/**
 * Backlog autoscaling: one monitor per pool, on the operator's one per-resource polling loop ({@code polling}),
 * polls its broker's backlog through {@code broker}, hands the samples to the pure decision in {@code scaling}, and
 * writes the pool's backlog and scaling fields of status: only those ({@code AutoscalerStatus.OWNED}, enforced by
 * {@code status.StatusPatcher}); the pool reconciler owns the rest. The pool reconciler reads
 * {@code status.desiredReplicas} and applies it to the Deployment; the autoscaler never touches the Deployment.
 */
package dev.backstage.operator.autoscaler;
