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
 *   <li>{@link #drop} — where a job would be dead-lettered: the message is removed from this subscription and a
 *       copy with the reason is kept in a place private to it, stored before the original is settled (Redis: the
 *       stream {@code {p}:topic:{t}:{group}:dead-letter}; RabbitMQ: the durable queue
 *       {@code {p}.topic.{t}.{group}.dead-letter}; Kafka: the topic {@code {p}.topic.{t}.{group}.dead-letter}),
 *       named in {@link #deadLetterDestination()}; the core logs it with the reason and counts it in
 *       {@code backstage_dead_letters}. A provider without such a place (a broadcast listener) only removes it;
 *   <li>{@link #abandon()} — leave it unsettled for the broker to deliver again (shutdown).
 * </ul>
 */
public interface TopicDelivery {
    String topic();

    String messageId();

    /** The payload as JSON text, exactly as the broker carried it. */
    String payloadJson();

    /** The payload for the core to decode to the subscription's type ({@link Payload}): the text by default. */
    default Payload payload() {
        return new Payload.Text(payloadJson());
    }

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
