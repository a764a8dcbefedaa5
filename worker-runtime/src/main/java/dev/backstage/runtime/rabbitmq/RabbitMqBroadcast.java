package dev.backstage.runtime.rabbitmq;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.Connection;
import dev.backstage.runtime.spi.BroadcastCapability;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.OutgoingJob;
import dev.backstage.runtime.spi.TopicConsumer;
import dev.backstage.runtime.spi.TopicSink;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

/**
 * Broadcast on RabbitMQ: a durable fan-out exchange {@code {p}.broadcast}; each listening worker binds its own
 * exclusive, auto-delete queue {@code {p}.broadcast.{consumerId}-{unique}}, so every worker receives every message
 * sent while its queue exists, and the queue disappears with the worker's connection (nothing piles up for a dead
 * worker; nothing is kept for a worker that is down). The body is job-shaped, as the Redis entry is:
 * {@code {"queue":"broadcast","taskName","payload":<JSON>,"enqueuedAt":ms,"meta":{},"deliveryCount":n}}, published
 * persistent with a confirm (not mandatory: with no worker listening, a broadcast reaches no one, by design).
 *
 * <p>Settlement mechanics are the topic reader's ({@link RabbitMqTopicConsumer}): a retry republishes a copy with
 * the next delivery count to this worker's queue only, then acks the original; a drop acks.
 */
final class RabbitMqBroadcast implements BroadcastCapability {
    static final String QUEUE_FIELD = "broadcast";

    private final RabbitMqSettings settings;
    private final RabbitMqNames names;
    private final JobBodyCodec codec;
    private final ConfirmingPublisher publisher;
    private final BrokerAdmin admin;
    private final Supplier<Connection> consumingConnection;
    private final ScheduledExecutorService supervisor;
    private volatile boolean exchangeDeclared;

    RabbitMqBroadcast(
            RabbitMqSettings settings,
            ObjectMapper mapper,
            ConfirmingPublisher publisher,
            BrokerAdmin admin,
            Supplier<Connection> consumingConnection,
            ScheduledExecutorService supervisor) {
        this.settings = settings;
        this.names = settings.names();
        this.codec = new JobBodyCodec(mapper);
        this.publisher = publisher;
        this.admin = admin;
        this.consumingConnection = consumingConnection;
        this.supervisor = supervisor;
    }

    @Override
    public String backend() {
        return RabbitMqTopics.BACKEND;
    }

    @Override
    public String send(String taskName, String payloadJson) {
        if (!exchangeDeclared) {
            admin.call(
                    "declare " + names.broadcastExchange(),
                    ch -> ch.exchangeDeclare(names.broadcastExchange(), "fanout", true, false, null));
            exchangeDeclared = true;
        }
        String messageId = UUID.randomUUID().toString();
        byte[] body = body(taskName, payloadJson, System.currentTimeMillis(), 1);
        publisher.publishAndWait(
                names.broadcastExchange(), taskName, false, RabbitMqTopics.properties(messageId), body);
        return messageId;
    }

    private byte[] body(String taskName, String payloadJson, long sentAtMs, int deliveryCount) {
        return codec.encode(
                new OutgoingJob(QUEUE_FIELD, taskName, payloadJson, sentAtMs, JobMeta.NONE, deliveryCount, null), null);
    }

    @Override
    public TopicConsumer listen(String consumerId, TopicSink sink) {
        String queue =
                names.broadcastQueue(consumerId, UUID.randomUUID().toString().substring(0, 8));
        RabbitMqTopicConsumer.BodyFormat format = new RabbitMqTopicConsumer.BodyFormat() {
            @Override
            public RabbitMqTopicConsumer.Received decode(byte[] bytes) {
                JobBody job = codec.decode(bytes);
                return new RabbitMqTopicConsumer.Received(
                        job.taskName(),
                        new TopicBody(
                                job.payloadJson(), job.enqueuedAtMs(), job.deliveryCount(), job.malformedReason()));
            }

            @Override
            public byte[] copy(RabbitMqTopicDelivery delivery, int deliveryCount) {
                return body(delivery.topic(), delivery.payloadJson(), delivery.publishedAtMs(), deliveryCount);
            }
        };
        RabbitMqTopicConsumer consumer = new RabbitMqTopicConsumer(
                publisher,
                format,
                "broadcast",
                consumerId + "-broadcast",
                queue,
                ch -> {
                    ch.exchangeDeclare(names.broadcastExchange(), "fanout", true, false, null);
                    ch.queueDeclare(queue, false, true, true, null);
                    ch.queueBind(queue, names.broadcastExchange(), "");
                    return queue;
                },
                sink,
                consumingConnection.get(),
                supervisor,
                settings.topicPrefetch(),
                settings.recoveryInterval(),
                null);
        consumer.start();
        return consumer;
    }
}
