package dev.backstage.runtime.spi;

import java.time.Instant;

/**
 * Jobs a delays backend holds for one queue until they are due.
 *
 * @param queue     the queue the jobs will enter, or null when the backend cannot tell queues apart
 *                  (the count is then for all queues together)
 * @param count     jobs held now
 * @param nextDueAt when the earliest of them is due, or null when there are none or the backend cannot tell
 * @param note      how the figures were obtained when they are not exact, else null
 */
public record DelayedBacklog(String queue, long count, Instant nextDueAt, String note) {}
