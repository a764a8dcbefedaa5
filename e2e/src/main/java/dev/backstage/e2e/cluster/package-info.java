/**
 * The real local cluster as the e2e tests and the sandbox see it: the control plane of {@code bin/control-plane}, an
 * admin client and the node agent that runs its pods ({@code LocalCluster}), and an earlier commit's operator as an
 * image of that node ({@code PinnedOperator}). Imports {@code node} and test-support's {@code ControlPlane};
 * {@code sandbox} imports it.
 */
package dev.backstage.e2e.cluster;
