package dev.backstage.runtime.spi;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * One delivery of a job, as a provider decoded it. The core settles it exactly once through
 * {@link #ack()}, {@link #retry}, {@link #deadLetter} or {@link #abandon()}.
 *
 * <p>Settlement methods return a stage that completes when the broker has durably taken the
 * outcome (e.g. the retry copy is confirmed before the original is acked).
 */
public interface Delivery {
    String queue();

    /** Empty string when the record carried none. */
    String taskName();

    /** The payload as JSON text, exactly as the broker carried it (null when absent). */
    String payloadJson();

    /**
     * The same payload as UTF-8 JSON bytes, for a provider that holds the record as bytes anyway (a slice
     * of it, not a copy); the core then decodes straight from them instead of from {@link #payloadJson()}.
     * Null (the default) when the provider has no such bytes or the payload is absent. A provider that already
     * holds the payload's parsed tokens offers them through the core's {@code PayloadTokens} instead: the
     * {@code spi} carries no JSON library's types.
     */
    default ByteBuffer payloadBytes() {
        return null;
    }

    long enqueuedAtMs();

    JobMeta meta();

    int deliveryCount();

    /** Stable across retries and redeliveries of the same logical job. */
    String jobId();

    /** The broker's id of this particular copy (stream entry id, delivery tag, topic:partition:offset). */
    String deliveryId();

    /**
     * Set when the provider could not decode the record at all (not JSON, missing fields): the core
     * dead-letters it with this reason instead of running anything.
     */
    default Optional<String> malformedReason() {
        return Optional.empty();
    }

    CompletionStage<Void> ack();

    /** Arrange another delivery after {@code delay}, recording {@code error}. */
    CompletionStage<Void> retry(Duration delay, String error);

    /** Move to the dead-letter destination with {@code error}, then remove from the queue. */
    CompletionStage<Void> deadLetter(String error);

    /** Leave it with the broker untouched (mixed fleets, shutdown): it will be redelivered. */
    void abandon();
}
