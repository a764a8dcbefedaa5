/**
 * The sandbox behind {@code bin/demo} ({@code SandboxMain}): the operator, a topology and an autoscaled pool on the
 * real local cluster ({@code RealSandbox}, through {@code cluster}) or on fabric8's mock API ({@code SandboxCluster},
 * with {@code SandboxApiServer} and {@code kubelet}'s {@code LocalKubelet}), the sample orders enqueued and the pool
 * shown live. The top of the e2e module: it imports {@code cluster}, {@code kubelet}, the operator, the runtime and
 * the sample tasks.
 */
package dev.backstage.e2e.sandbox;
