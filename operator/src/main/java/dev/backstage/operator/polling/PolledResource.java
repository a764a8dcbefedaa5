package dev.backstage.operator.polling;

import java.time.Duration;

/**
 * What a {@link PerResourcePoller} polls for one primary resource: the subclass's own per-resource state (a pool's
 * sample history, a topology's newest copy) and its one poll.
 *
 * <p>The poller calls {@link #poll()} on one of its threads, never twice at once for the same resource (each poll
 * schedules the next when it ends), so the state a poll keeps needs no lock of its own. {@link #refresh} comes from
 * other threads (the reconciler's, the informer's).
 *
 * @param <P> the primary resource
 */
public interface PolledResource<P> {
    /**
     * One poll: measure or fire, and write the status fields this poller owns when they changed. Handles its own
     * failures (a broker that does not answer is news for the status, not an exception).
     *
     * @return how long to wait before the next poll
     */
    Duration poll();

    /** A newer copy of the resource: from a reconcile, an informer update, or the poll's own status write. */
    void refresh(P resource);

    /**
     * Polling stops: the resource was deleted, has nothing left to poll, or the operator stops. A poll running now
     * must not write after this returns; no poll starts after it.
     */
    void stop();
}
