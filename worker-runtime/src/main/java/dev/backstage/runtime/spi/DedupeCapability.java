package dev.backstage.runtime.spi;

import java.time.Duration;

/** Suppresses a second enqueue with the same key within a TTL. */
public interface DedupeCapability {
    String backend();

    /** True when the key was free (and is now taken for {@code ttl}); false when it was taken. */
    boolean tryClaim(String key, Duration ttl);

    /**
     * Gives a claim back, so the key can be claimed again at once (a cron tick whose job could not be enqueued).
     * False when this backend cannot release a claim: it then holds until its TTL.
     */
    default boolean release(String key) {
        return false;
    }

    /**
     * The atomic claim-and-enqueue onto {@code jobs}, when this backend and {@code jobs} are the same broker (Redis
     * dedupe and Redis jobs of one URL and prefix); empty otherwise, and then callers claim and publish in two steps.
     */
    default java.util.Optional<ClaimingPublisher> claimingPublisher(JobsCapability jobs) {
        return java.util.Optional.empty();
    }
}
