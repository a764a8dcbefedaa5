package dev.backstage.operator.scaling.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * One worker pod: starting until {@code readyAtMs}, then taking jobs into its slots; after SIGTERM it takes
 * no new job, lets the running ones finish, and is killed with them at the end of the grace period.
 */
final class SimPod {
    final int id;
    final long createdAtMs;
    final long readyAtMs;
    final List<SimJob> running = new ArrayList<>();
    final List<Integer> partitions = new ArrayList<>();
    long terminatingSinceMs = -1;

    SimPod(int id, long createdAtMs, long readyAtMs) {
        this.id = id;
        this.createdAtMs = createdAtMs;
        this.readyAtMs = readyAtMs;
    }

    boolean terminating() {
        return terminatingSinceMs >= 0;
    }

    boolean ready(long nowMs) {
        return !terminating() && nowMs >= readyAtMs;
    }
}
