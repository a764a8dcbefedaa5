/**
 * Containers as local processes: a container as a child JVM ({@code ChildJvmPod}), its env and volumes resolved as a
 * kubelet would ({@code PodSpecResolver}), and for the fabric8 mock API a kubelet and Deployment controller in one
 * ({@code LocalKubelet}). The bottom of the e2e module: it imports none of its other packages; {@code node} (the
 * real cluster's node agent) and {@code sandbox} (the mock cluster) build on it.
 */
package dev.backstage.e2e.kubelet;
