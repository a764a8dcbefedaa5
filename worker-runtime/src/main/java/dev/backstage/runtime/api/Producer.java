package dev.backstage.runtime.api;

/**
 * The producer side of a worker, alone: what a CLI, a web request handler or a test needs to enqueue jobs.
 * Each option that needs a capability (a delay, a dedupe key) fails with {@link CapabilityMissingException}
 * when nothing supplies it.
 */
public interface Producer {
    EnqueueResult enqueue(String taskName, Object payload, EnqueueOptions options);

    /** The payload is JSON text already, published byte for byte. */
    EnqueueResult enqueueJson(String taskName, String payloadJson, EnqueueOptions options);
}
