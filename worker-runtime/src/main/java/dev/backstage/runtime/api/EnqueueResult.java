package dev.backstage.runtime.api;

import java.time.Instant;

/**
 * The outcome of an enqueue: the broker id (a stream entry id, {@code scheduled:<ms>} for a delayed
 * job, or a generated job id), or {@code deduplicated} when the dedupe key was already taken.
 */
public record EnqueueResult(String id, boolean deduplicated, Instant runAt) {
    public static EnqueueResult skippedAsDuplicate() {
        return new EnqueueResult(null, true, null);
    }
}
