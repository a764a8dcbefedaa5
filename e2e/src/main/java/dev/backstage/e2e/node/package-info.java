/**
 * A node for the local control plane of {@code bin/control-plane}, in this JVM: {@link dev.backstage.e2e.node.NodeAgent}
 * runs the loop and delegates to one class per concern: the node's Lease and Node object
 * ({@code NodeRegistration}), binding pending Pods ({@code PodBinder}), a container as a child JVM with restarts and
 * termination ({@code PodProcesses}), probes ({@code PodProbes}), the Pod's status ({@code PodStatusWriter}) and
 * Events ({@code PodEvents}), what each pod's state is ({@code PodState}), Services forwarded on loopback
 * ({@code ServiceProxy}), the images it can run ({@link dev.backstage.e2e.node.KnownImages}), and the kubelet's port
 * the API server calls ({@code KubeletServer}): {@code kubectl logs} ({@code PodLogServer}) and
 * {@code kubectl port-forward} ({@code PortForwardUpgrade}, {@code PortForwardSession}, through {@code PodPorts}).
 */
package dev.backstage.e2e.node;
