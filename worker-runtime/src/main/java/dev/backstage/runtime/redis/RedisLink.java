package dev.backstage.runtime.redis;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A lettuce connection of either kind behind the commands both have: one to a node (standalone, or the primary
 * Sentinel names) or one to a Redis Cluster, which routes each command to the primary owning its key's slot. The
 * provider's code speaks {@link RedisClusterCommands}, which lettuce's single-node commands extend, so it is the
 * same code in every mode; only {@link #waitForReplicas} differs (WAIT must reach the node that took the write).
 */
final class RedisLink implements AutoCloseable {
    private final StatefulConnection<String, String> connection;
    private final RedisClusterCommands<String, String> sync;
    private final RedisClusterAsyncCommands<String, String> async;
    private final StatefulRedisClusterConnection<String, String> cluster;

    private RedisLink(
            StatefulConnection<String, String> connection,
            RedisClusterCommands<String, String> sync,
            RedisClusterAsyncCommands<String, String> async,
            StatefulRedisClusterConnection<String, String> cluster) {
        this.connection = connection;
        this.sync = sync;
        this.async = async;
        this.cluster = cluster;
    }

    static RedisLink of(StatefulRedisConnection<String, String> connection) {
        return new RedisLink(connection, connection.sync(), connection.async(), null);
    }

    static RedisLink of(StatefulRedisClusterConnection<String, String> connection) {
        return new RedisLink(connection, connection.sync(), connection.async(), connection);
    }

    RedisClusterCommands<String, String> sync() {
        return sync;
    }

    RedisClusterAsyncCommands<String, String> async() {
        return async;
    }

    Duration timeout() {
        return connection.getTimeout();
    }

    boolean clustered() {
        return cluster != null;
    }

    /**
     * {@code WAIT replicas timeout} on the connection that carried the writes to {@code key}: on one node the
     * connection itself (its commands are pipelined in order, so WAIT follows the write), in a cluster the
     * connection to the primary owning the key's slot (the one lettuce routed the write over).
     *
     * @return how many replicas acknowledged
     */
    long waitForReplicas(String key, ReplicaWait wait) {
        long ms = wait.timeout().toMillis();
        if (cluster == null) {
            return sync.waitForReplication(wait.replicas(), ms);
        }
        RedisClusterNode owner = cluster.getPartitions().getPartitionBySlot(SlotHash.getSlot(key));
        if (owner == null) {
            return 0; // no primary known for the slot right now (a failover): the caller reports the write unsafe
        }
        // By host and port: lettuce keys the connections it routes writes over that way (by node id is another).
        return cluster.getConnection(owner.getUri().getHost(), owner.getUri().getPort())
                .sync()
                .waitForReplication(wait.replicas(), ms);
    }

    /** {@link #waitForReplicas} without blocking the caller (for settlements, which complete on lettuce's threads). */
    CompletionStage<Long> waitForReplicasAsync(String key, ReplicaWait wait) {
        long ms = wait.timeout().toMillis();
        if (cluster == null) {
            return async.waitForReplication(wait.replicas(), ms);
        }
        RedisClusterNode owner = cluster.getPartitions().getPartitionBySlot(SlotHash.getSlot(key));
        if (owner == null) {
            return CompletableFuture.completedFuture(0L);
        }
        return cluster.getConnectionAsync(
                        owner.getUri().getHost(), owner.getUri().getPort())
                .thenCompose(node -> node.async().waitForReplication(wait.replicas(), ms));
    }

    @Override
    public void close() {
        connection.close();
    }
}
