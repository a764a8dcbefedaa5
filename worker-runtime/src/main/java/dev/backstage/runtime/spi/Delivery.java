package dev.backstage.runtime.spi;

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

    /**
     * The payload as JSON text, exactly as the broker carried it (null when absent): what the provider copies into
     * a retry or a dead-letter entry. The core reads the payload through {@link #payload()} only.
     */
    String payloadJson();

    /**
     * The payload in the form this provider holds it, for the core to decode to the task's type: the text by
     * default; a provider that holds the record as bytes anyway offers {@link Payload.Bytes}, one that read the
     * payload's JSON tokens in its pass over the record offers {@link Payload.Parsed}. Called once per delivery,
     * first of all on the handler thread (before any other field), so a provider that reads its record lazily can
     * bind the payload in that one read.
     */
    default Payload payload() {
        return new Payload.Text(payloadJson());
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
