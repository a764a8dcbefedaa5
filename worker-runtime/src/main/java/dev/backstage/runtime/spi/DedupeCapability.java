package dev.backstage.runtime.spi;

import java.time.Duration;

/** Suppresses a second enqueue with the same key within a TTL. */
public interface DedupeCapability {
    String backend();

    /** True when the key was free (and is now taken for {@code ttl}); false when it was taken. */
    boolean tryClaim(String key, Duration ttl);
}
