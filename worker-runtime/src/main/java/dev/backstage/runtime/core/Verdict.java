package dev.backstage.runtime.core;

/**
 * What a delivery becomes before its handler runs ({@link OutcomePolicy#prepare}): run the handler with the decoded
 * payload, leave the delivery with the broker untouched, or reject it (dead-letter a job, drop a topic message) with
 * the reason, without running anything.
 */
sealed interface Verdict permits Verdict.Run, Verdict.Leave, Verdict.Reject {
    /** Leave the delivery with the broker for another worker (a job whose task this worker does not own). */
    Verdict LEAVE = new Leave();

    /** Run the handler with {@code payload}, decoded to its type (null where the type stands for "no payload"). */
    record Run(Object payload) implements Verdict {}

    /** Leave it with the broker: {@link #LEAVE}. */
    record Leave() implements Verdict {}

    /** Not runnable (unreadable record or payload, unknown task, past its allowance): settled at once, with why. */
    record Reject(String reason) implements Verdict {}
}
