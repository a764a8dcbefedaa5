package dev.backstage.runtime.kafka;

import dev.backstage.runtime.spi.StartPosition;
import dev.backstage.runtime.spi.Subscription;
import dev.backstage.runtime.spi.TopicConsumer;
import dev.backstage.runtime.spi.TopicSink;
import dev.backstage.runtime.spi.TopicsCapability;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publish/subscribe on Kafka (docs/wire-format.md): topic {@code t} is Kafka topic {@code {p}.topic.{t}}; a fan-out
 * subscriber reads with its own group {@code {p}.sub.{consumerId}}, a shared subscription with
 * {@code {p}.grp.{group}}. A new group starts at the earliest or latest offset as the subscription asks.
 *
 * <p>Settlement is the core's (the jobs' retry rule). A retry reaches only the failing subscription: a copy goes
 * to the group's own retry topic {@code {p}.topic.{t}.{g}.retry}, which the subscription's consumer reads beside
 * the topic and hands out when due; a message past the retry policy goes to the group's
 * {@code {p}.topic.{t}.{g}.dead-letter} with the reason ({@link TopicRetries}). The original is committed as soon
 * as its copy is stored, so a long back-off holds nothing back and a crash loses no retry (the seed republished a
 * copy to the shared topic, so every other group received it again).
 *
 * <p>Fan-out group names contain the consumer id (host and pid by default), so each process start makes a
 * new group; Kafka expires empty groups' offsets after {@code offsets.retention.minutes} (7 days by default).
 * Its retry and dead-letter topics are deleted on a clean close when nothing is left in them
 * ({@link TopicRetries#deleteIfDrained}).
 */
final class KafkaTopics implements TopicsCapability {
    private static final Logger log = LoggerFactory.getLogger(KafkaTopics.class);
    /** How long subscribe() waits for the first assignment, so "latest" starts before it returns. */
    static final Duration ASSIGNMENT_WAIT = Duration.ofSeconds(30);

    private final KafkaClients clients;
    private final KafkaNames names;

    KafkaTopics(KafkaClients clients) {
        this.clients = clients;
        this.names = clients.settings().names();
    }

    @Override
    public String backend() {
        return "kafka";
    }

    /** Returns {@code <kafka topic>:<partition>:<offset>} of the message. */
    @Override
    public String publish(String topic, String payloadJson) {
        String kafkaTopic = names.topicTopic(topic);
        clients.ensureJobTopic(kafkaTopic);
        byte[] value = new TopicMessageValue(payloadJson, System.currentTimeMillis(), 1).encode();
        try {
            RecordMetadata md =
                    clients.send(kafkaTopic, value).get(KafkaClients.ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return md.topic() + ":" + md.partition() + ":" + md.offset();
        } catch (ExecutionException e) {
            throw new KafkaBrokerException("publish to " + kafkaTopic + " failed", e);
        } catch (TimeoutException e) {
            throw new KafkaBrokerException("publish to " + kafkaTopic + " was not acknowledged in time", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaBrokerException("interrupted while publishing to " + kafkaTopic, e);
        }
    }

    @Override
    public TopicConsumer subscribe(Subscription subscription, String consumerId, TopicSink sink) {
        String kafkaTopic = names.topicTopic(subscription.topic());
        clients.ensureJobTopic(kafkaTopic);
        String group =
                subscription.isFanOut() ? names.fanOutGroup(consumerId) : names.sharedGroup(subscription.group());
        TopicRetries retries = new TopicRetries(clients, subscription.topic(), group);
        KafkaSettings settings = clients.settings();
        // One consumer per subscription: name it after the topic and the kind of group, so two subscriptions of
        // one process to the same topic get distinct client ids and thread names.
        String label = subscription.topic() + "-" + (subscription.isFanOut() ? "sub" : "grp." + subscription.group())
                + "-" + consumerId;
        KafkaConsumer<byte[], byte[]> consumer = clients.newConsumer(
                group,
                "backstage-topic-" + label,
                subscription.start() == StartPosition.EARLIEST ? "earliest" : "latest",
                settings.topicMaxInFlight(),
                true);
        RecordSink toCore =
                (record, ticket) -> sink.accept(new KafkaTopicDelivery(subscription.topic(), record, ticket, retries));
        KafkaPollLoop loop = new KafkaPollLoop(
                "backstage-kafka-topic-" + label,
                consumer,
                List.of(kafkaTopic, retries.retryTopic()),
                null,
                settings.topicMaxInFlight(),
                toCore,
                settings,
                retries,
                Set.of(retries.retryTopic()));
        loop.start();
        try {
            if (!loop.awaitFirstAssignment(ASSIGNMENT_WAIT)) {
                log.warn(
                        "subscription to {} (group {}) got no partitions within {} s; it keeps trying, but a"
                                + " 'latest' start may miss messages published meanwhile",
                        kafkaTopic,
                        group,
                        ASSIGNMENT_WAIT.toSeconds());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return new TopicConsumer() {
            @Override
            public void close() {
                loop.close();
                if (subscription.isFanOut() && loop.failure().isEmpty()) {
                    retries.deleteIfDrained(group);
                }
            }

            @Override
            public java.util.Optional<String> failure() {
                return loop.failure();
            }
        };
    }
}
