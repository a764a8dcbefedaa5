package dev.backstage.runtime.rabbitmq;

import com.rabbitmq.client.AMQP;
import dev.backstage.runtime.spi.ConsumerSettings;
import dev.backstage.runtime.spi.DeliverySink;
import dev.backstage.runtime.spi.JobConsumer;
import dev.backstage.runtime.spi.JobsCapability;
import dev.backstage.runtime.spi.OutgoingJob;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Jobs on RabbitMQ (docs/wire-format.md): durable queue {@code {p}.{q}} with its dead-letter queue
 * {@code {p}.{q}.dead-letter}; persistent JSON messages published on the default exchange with publisher
 * confirms; manual acks; prefetch from the worker's in-flight allowance.
 */
final class RabbitMqJobs implements JobsCapability {
    /** Redis' default read order; RabbitMQ workers that configure no queues read the same three. */
    static final List<String> DEFAULT_QUEUES = List.of("urgent", "default", "low");

    private final RabbitMqSettings settings;
    private final RabbitMqNames names;
    private final JobBodyCodec codec;
    private final ConfirmingPublisher publisher;
    private final QueueDeclarations declarations;
    private final Supplier<com.rabbitmq.client.Connection> consumingConnection;
    private final java.util.concurrent.ScheduledExecutorService supervisor;

    RabbitMqJobs(
            RabbitMqSettings settings,
            JobBodyCodec codec,
            ConfirmingPublisher publisher,
            QueueDeclarations declarations,
            Supplier<com.rabbitmq.client.Connection> consumingConnection,
            java.util.concurrent.ScheduledExecutorService supervisor) {
        this.settings = settings;
        this.names = settings.names();
        this.codec = codec;
        this.publisher = publisher;
        this.declarations = declarations;
        this.consumingConnection = consumingConnection;
        this.supervisor = supervisor;
    }

    /** Publishes and waits for the broker's confirm; returns the job id (RabbitMQ has no message ids). */
    @Override
    public String publish(OutgoingJob job) {
        OutgoingJob withId = withJobId(job);
        ConfirmingPublisher.await(publishAsync(withId));
        return withId.jobId();
    }

    /** A brand-new job gets its stable id here (docs/wire-format.md, job fields); copies keep theirs. */
    OutgoingJob withJobId(OutgoingJob job) {
        if (job.jobId() != null) {
            return job;
        }
        return new OutgoingJob(
                job.queue(),
                job.taskName(),
                job.payloadJson(),
                job.enqueuedAtMs(),
                job.meta(),
                job.deliveryCount(),
                UUID.randomUUID().toString());
    }

    /** Publishes {@code job} (which must carry its job id) to its work queue; completes on the confirm. */
    CompletableFuture<Void> publishAsync(OutgoingJob job) {
        byte[] body;
        try {
            declarations.ensureJobQueue(job.queue());
            body = codec.encode(job, job.jobId());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return publishBody(job.queue(), names.workQueue(job.queue()), properties(job.jobId(), Map.of()), body);
    }

    /** Publishes a ready-made body to a job queue or its dead-letter queue; completes on the confirm. */
    CompletableFuture<Void> publishBody(String queue, String brokerQueue, AMQP.BasicProperties props, byte[] body) {
        return publisher.publish("", brokerQueue, true, props, body).whenComplete((ok, error) -> {
            if (error instanceof PublishNotConfirmedException
                    && error.getMessage().contains("unroutable")) {
                declarations.forget(queue); // the queue vanished: declare it again on the next publish
            }
        });
    }

    /** Persistent JSON; the message id is the job id, the timestamp lets the management API age the queue head. */
    static AMQP.BasicProperties properties(String jobId, Map<String, Object> headers) {
        return new AMQP.BasicProperties.Builder()
                .contentType("application/json")
                .deliveryMode(2)
                .messageId(jobId)
                .timestamp(new Date())
                .headers(headers.isEmpty() ? null : new HashMap<>(headers))
                .build();
    }

    @Override
    public JobConsumer consume(ConsumerSettings consumerSettings, DeliverySink sink) {
        RabbitMqJobConsumer consumer = new RabbitMqJobConsumer(
                consumerSettings, sink, this, consumingConnection.get(), supervisor, settings.recoveryInterval());
        consumer.start();
        return consumer;
    }

    @Override
    public List<String> defaultQueues() {
        return DEFAULT_QUEUES;
    }

    /** Only when delays must come from elsewhere (delayedExchange=supplied) does a retry need a supplied one. */
    @Override
    public boolean retryNeedsDelays() {
        return settings.delayMode() == DelayMode.SUPPLIED;
    }

    RabbitMqNames names() {
        return names;
    }

    JobBodyCodec codec() {
        return codec;
    }

    ConfirmingPublisher publisher() {
        return publisher;
    }

    QueueDeclarations declarations() {
        return declarations;
    }
}
