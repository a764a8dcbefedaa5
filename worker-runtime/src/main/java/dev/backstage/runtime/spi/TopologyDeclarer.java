package dev.backstage.runtime.spi;

import java.util.List;

/**
 * Creates and inspects the broker objects a topology names (streams and groups; queues, DLQs and
 * exchanges; topics). The operator's topology reconciler calls this; it never speaks broker protocol
 * itself. Declaring is idempotent: objects that exist are reported as {@code EXISTED}.
 */
public interface TopologyDeclarer {
    List<DeclaredObject> declare(TopologyRequest request);

    /** What exists now, without creating anything: objects that are gone are {@code MISSING}. */
    List<DeclaredObject> inspect(TopologyRequest request);

    /** Removes what {@link #declare} created (deletionPolicy: delete). */
    List<DeclaredObject> delete(TopologyRequest request);
}
