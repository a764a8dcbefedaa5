package dev.backstage.runtime.redis;

import dev.backstage.runtime.spi.ConfigurationException;
import java.time.Duration;

/**
 * How many replicas must hold a write that matters (an enqueue, a delayed job, a settlement) before the provider
 * reports it done: {@code WAIT replicas timeout} on the connection that made the write, right after it. Off
 * ({@code replicas = 0}) the write is done when the primary has it, and Redis replicates asynchronously: a primary
 * that dies in that window takes it along.
 *
 * <p>With {@code replicas >= 1}, an enqueue that returns is on the primary and on that many replicas; one that
 * reaches fewer within {@code timeout} fails ({@link ReplicaWaitException}), so the caller retries it (at-least-once:
 * the write may still survive, a retry then duplicates it). A failover that promotes the most up-to-date replica
 * (Redis Cluster and Sentinel both do) then keeps every acknowledged enqueue. Settlements that did not reach a
 * replica are lost with the primary and the job runs again: a duplicate, never a loss.
 */
public record ReplicaWait(int replicas, Duration timeout) {
    public static final ReplicaWait OFF = new ReplicaWait(0, Duration.ofSeconds(1));

    public ReplicaWait {
        if (replicas < 0) {
            throw new ConfigurationException(
                    "redis option waitReplicas must be >= 0 (0 = do not wait), got " + replicas);
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new ConfigurationException(
                    "redis option waitTimeoutMs must be > 0 (WAIT 0 would block forever), got " + timeout);
        }
    }

    public boolean on() {
        return replicas > 0;
    }

    /** Thrown when fewer replicas than asked for acknowledged a write within the timeout. */
    public static final class ReplicaWaitException extends RuntimeException {
        public ReplicaWaitException(String message) {
            super(message);
        }
    }
}
