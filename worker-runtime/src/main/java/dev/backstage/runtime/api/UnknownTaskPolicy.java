package dev.backstage.runtime.api;

/**
 * What to do with a delivery whose task name no handler is registered for. The seed SDKs ack and
 * lose it; we never drop silently (docs/wire-format.md).
 */
public enum UnknownTaskPolicy {
    /** Dead-letter it with the error {@code unknown task '<name>'} (the default). */
    DEAD_LETTER,
    /** Leave it pending for another worker of a mixed fleet that owns the task. */
    LEAVE_PENDING
}
