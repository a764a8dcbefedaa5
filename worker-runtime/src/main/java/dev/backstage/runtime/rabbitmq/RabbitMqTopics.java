package dev.backstage.runtime.rabbitmq;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Connection;
import dev.backstage.runtime.spi.ConfigurationException;
import dev.backstage.runtime.spi.Subscription;
import dev.backstage.runtime.spi.TopicConsumer;
import dev.backstage.runtime.spi.TopicSink;
import dev.backstage.runtime.spi.TopicsCapability;
import java.util.Date;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

/**
 * Publish/subscribe on RabbitMQ (docs/wire-format.md): a durable topic exchange {@code {p}.topics}, routing key =
 * topic name, body {@code {"payload","publishedAt","deliveryCount"}}, published persistent with a confirm.
 *
 * <ul>
 *   <li>Fan-out subscriber: a temporary, exclusive, auto-delete queue of its own, bound while the
 *       subscriber runs. <b>No replay:</b> it receives only messages published after its queue was bound
 *       (and none published while its connection was down: the exclusive queue goes with the connection),
 *       whatever {@link dev.backstage.runtime.spi.StartPosition} says.
 *   <li>Named group: the durable queue {@code {p}.topic.{topic}.{group}}, shared by the group's members.
 *       It keeps messages while no member runs, but only from the moment it was first declared: messages
 *       published before that are not replayed either.
 * </ul>
 *
 * Settlement is the core's (the jobs' retry rule); the mechanics here: a retry republishes the message to the
 * subscriber's own queue with {@code deliveryCount + 1} after the back-off (then acks the original), so no
 * other subscriber sees it again; a drop publishes the original body, with the reason in headers, to the
 * subscription's own durable dead-letter queue {@code {p}.topic.{t}.{group}.dead-letter} (a fan-out subscriber's:
 * {@code {p}.topic.{t}.fanout.{consumerId}.dead-letter}) and acks the original once that is confirmed
 * ({@link TopicDeadLetters}).
 */
final class RabbitMqTopics implements TopicsCapability {
    static final String BACKEND = "rabbitmq";

    private final RabbitMqSettings settings;
    private final RabbitMqNames names;
    private final ObjectMapper mapper;
    private final ConfirmingPublisher publisher;
    private final BrokerAdmin admin;
    private final Supplier<Connection> consumingConnection;
    private final ScheduledExecutorService supervisor;
    private volatile boolean exchangeDeclared;

    RabbitMqTopics(
            RabbitMqSettings settings,
            ObjectMapper mapper,
            ConfirmingPublisher publisher,
            BrokerAdmin admin,
            Supplier<Connection> consumingConnection,
            ScheduledExecutorService supervisor) {
        this.settings = settings;
        this.names = settings.names();
        this.mapper = mapper;
        this.publisher = publisher;
        this.admin = admin;
        this.consumingConnection = consumingConnection;
        this.supervisor = supervisor;
    }

    @Override
    public String backend() {
        return BACKEND;
    }

    @Override
    public String publish(String topic, String payloadJson) {
        validate(topic);
        ensureExchange();
        String messageId = UUID.randomUUID().toString();
        byte[] body = TopicBody.encode(mapper, payloadJson, System.currentTimeMillis(), 1);
        // Not mandatory: a topic nobody subscribes to drops messages by design.
        publisher.publishAndWait(names.topicsExchange(), topic, false, properties(messageId), body);
        return messageId;
    }

    @Override
    public TopicConsumer subscribe(Subscription subscription, String consumerId, TopicSink sink) {
        validate(subscription.topic());
        if (subscription.group() != null) {
            validate(subscription.group());
        }
        boolean fanOut = subscription.isFanOut();
        String queue = fanOut
                ? names.topicFanOutQueue(
                        subscription.topic(),
                        consumerId,
                        UUID.randomUUID().toString().substring(0, 8))
                : names.topicGroupQueue(subscription.topic(), subscription.group());
        String label = (fanOut ? "fan-out" : "group " + subscription.group()) + " on topic " + subscription.topic();
        String tag = consumerId + "-topic-" + subscription.topic() + (fanOut ? "" : "-" + subscription.group());
        RabbitMqTopicConsumer.BodyFormat format = new RabbitMqTopicConsumer.BodyFormat() {
            @Override
            public RabbitMqTopicConsumer.Received decode(byte[] bytes) {
                return new RabbitMqTopicConsumer.Received(subscription.topic(), TopicBody.decode(mapper, bytes));
            }

            @Override
            public byte[] copy(RabbitMqTopicDelivery delivery, int deliveryCount) {
                return TopicBody.encode(mapper, delivery.payloadJson(), delivery.publishedAtMs(), deliveryCount);
            }
        };
        TopicDeadLetters deadLetters = new TopicDeadLetters(
                publisher,
                admin,
                names.topicDeadLetterQueue(subscription.topic(), subscription.group(), consumerId),
                settings.queueArguments().deadLetterQueue());
        RabbitMqTopicConsumer consumer = new RabbitMqTopicConsumer(
                publisher,
                format,
                label,
                tag,
                queue,
                ch -> {
                    ch.exchangeDeclare(names.topicsExchange(), "topic", true, false, null);
                    // Fan-out: exclusive + auto-delete, gone with the connection, so always classic (a quorum queue can
                    // be
                    // neither); a group queue outlives its members, and is of the provider's queue type.
                    if (fanOut) {
                        ch.queueDeclare(queue, false, true, true, null);
                    } else {
                        if (settings.queueArguments().quorum()) {
                            // The group queue names it as its delivery limit's target; classic groups create it on
                            // first use.
                            admin.ensureQueue(
                                    deadLetters.queue(),
                                    settings.queueArguments().deadLetterQueue());
                        }
                        admin.ensureQueue(queue, settings.queueArguments().workQueue(deadLetters.queue()));
                    }
                    ch.queueBind(queue, names.topicsExchange(), subscription.topic());
                    return queue;
                },
                sink,
                consumingConnection.get(),
                supervisor,
                settings.topicPrefetch(),
                settings.recoveryInterval(),
                deadLetters);
        consumer.start();
        return consumer;
    }

    void ensureExchange() {
        if (!exchangeDeclared) {
            admin.call(
                    "declare " + names.topicsExchange(),
                    ch -> ch.exchangeDeclare(names.topicsExchange(), "topic", true, false, null));
            exchangeDeclared = true;
        }
    }

    /** Topic and group names become routing keys and queue names: AMQP wildcards would change their meaning. */
    private static void validate(String name) {
        if (name == null || !name.matches("[A-Za-z0-9_.\\-]+")) {
            throw new ConfigurationException(
                    "topic/group name '" + name + "' may only contain letters, digits, '_', '.' and '-'");
        }
    }

    static AMQP.BasicProperties properties(String messageId) {
        return new AMQP.BasicProperties.Builder()
                .contentType("application/json")
                .deliveryMode(2)
                .messageId(messageId)
                .timestamp(new Date())
                .build();
    }
}
