package dev.backstage.runtime.spi;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * One topic message for one subscription. The core decides its fate exactly as it does for a job (the same
 * retry rule, back-off and hard timeout); a provider only carries it out:
 * <ul>
 *   <li>{@link #ack()} — done;
 *   <li>{@link #retry} — deliver it again <em>to this subscription only</em> after {@code delay}, with the next
 *       delivery count (never republished where other groups would see it again);
 *   <li>{@link #drop} — the topic policy where a job would be dead-lettered: the message is removed from this
 *       subscription; the core logs it with the reason and counts it in {@code backstage_dead_letters}. The same
 *       on every broker; a provider that also keeps a copy with the reason (Kafka: the group's dead-letter topic)
 *       names it in {@link #deadLetterDestination()};
 *   <li>{@link #abandon()} — leave it unsettled for the broker to deliver again (shutdown).
 * </ul>
 */
public interface TopicDelivery {
    String topic();

    String messageId();

    String payloadJson();

    long publishedAtMs();

    int deliveryCount();

    /** Set when the provider could not read the message at all: the core drops it at once with this reason. */
    default Optional<String> malformedReason() {
        return Optional.empty();
    }

    CompletionStage<Void> ack();

    CompletionStage<Void> retry(Duration delay, String error);

    CompletionStage<Void> drop(String reason);

    /** Where {@link #drop} keeps a copy of the message with the reason, or empty when a drop only removes it. */
    default Optional<String> deadLetterDestination() {
        return Optional.empty();
    }

    void abandon();
}
