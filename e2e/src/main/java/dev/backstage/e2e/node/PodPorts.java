package dev.backstage.e2e.node;

import java.util.Map;
import java.util.Optional;

/**
 * Where a pod's container ports are on this machine: a container cannot have a network namespace here, so each
 * port the image knows is mapped to a free local port ({@link PodProcesses}). Port-forward reaches a pod's port
 * through this.
 */
@FunctionalInterface
interface PodPorts {

    /**
     * The container port → local port map of a pod whose container runs on this node, or empty when this node runs
     * no container of that pod (not bound here, not started yet, or being deleted).
     */
    Optional<Map<Integer, Integer>> ports(String namespace, String pod);
}
