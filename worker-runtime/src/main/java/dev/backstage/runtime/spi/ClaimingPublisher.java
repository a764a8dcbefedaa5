package dev.backstage.runtime.spi;

import java.time.Duration;

/**
 * A dedupe backend that claims a key and enqueues a job in one atomic step, because both live on the same broker
 * ({@link DedupeCapability#claimingPublisher}). A cron tick fired this way is never enqueued twice by a retry: a
 * claim and its job are written together or not at all, so a retry after an unclear failure (a failover, a replica
 * wait that timed out) finds the claim with the job's id instead of enqueuing again.
 */
public interface ClaimingPublisher {
    /** What one call did: claimed the key and enqueued the job, or found the key claimed. */
    record Result(boolean claimed, String jobId) {}

    /**
     * Claims {@code key} for {@code ttl} and enqueues {@code job}, or does nothing when the key is taken. Returns only
     * once both are as durable as the broker's settings ask (e.g. on the replicas); a failure leaves either both or
     * neither written, so the caller simply tries again.
     *
     * @return claimed with the job's id; or not claimed, with the id stored by the claimer when it was one of these
     *         (null when the key was claimed by a plain {@link DedupeCapability#tryClaim})
     */
    Result claimAndPublish(String key, Duration ttl, OutgoingJob job);
}
