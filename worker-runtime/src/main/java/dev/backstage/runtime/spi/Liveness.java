package dev.backstage.runtime.spi;

import java.util.Optional;

/**
 * Whether a background loop (a fetch or poll loop, a reclaimer, a delay promoter) is still doing its job.
 * A loop that retries a broker error is alive; one that stopped for good (an {@code Error}, a fatal broker
 * answer such as a fenced member, too many failed turns in a row) reports why, and {@code /healthz} fails so
 * the pod is restarted instead of sitting Ready and consuming nothing.
 */
public interface Liveness {
    /** Why this loop stopped for good, in words a person can act on; empty while it works. */
    Optional<String> failure();
}
