package dev.backstage.runtime.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Envelope;
import dev.backstage.runtime.spi.BackstageException;
import dev.backstage.runtime.spi.ConsumerSettings;
import dev.backstage.runtime.spi.DelaysCapability;
import dev.backstage.runtime.spi.DeliverySink;
import dev.backstage.runtime.spi.JobConsumer;
import dev.backstage.runtime.spi.OutgoingJob;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes a worker's queues on one supervised channel and carries out the settlements the core decides
 * (the mechanics only; the policy is the core's {@code JobOutcomes}):
 *
 * <ul>
 *   <li>ack: {@code basic.ack}.
 *   <li>retry: publish a copy with {@code deliveryCount + 1} and the same job id — to the work queue when
 *       the delay is 0, else through the resolved delays capability — and ack the original only once the
 *       copy is confirmed (or, for a supplied capability, stored).
 *   <li>dead-letter: publish the dead-letter body to {@code {p}.{q}.dead-letter}, ack after the confirm.
 * </ul>
 *
 * If the copy is refused, unconfirmed or times out, the original stays unacked and the returned stage
 * fails; the broker redelivers the original when the channel closes. If the channel closed before
 * settlement, nothing is published at all: the broker is already redelivering the original.
 */
final class RabbitMqJobConsumer implements JobConsumer {
    private static final Logger log = LoggerFactory.getLogger(RabbitMqJobConsumer.class);

    private final ConsumerSettings settings;
    private final DeliverySink sink;
    private final RabbitMqJobs jobs;
    private final Optional<DelaysCapability> delays;
    private final Map<String, String> queueByConsumerTag = new HashMap<>();
    static final Duration ABANDON_PAUSE = Duration.ofSeconds(1);

    private final SupervisedChannel channel;
    private final ScheduledExecutorService supervisor;
    private volatile boolean fetching = true;

    RabbitMqJobConsumer(
            ConsumerSettings settings,
            DeliverySink sink,
            RabbitMqJobs jobs,
            Connection connection,
            ScheduledExecutorService supervisor,
            Duration supervisionInterval) {
        this.settings = settings;
        this.sink = sink;
        this.jobs = jobs;
        this.delays = settings.delays();
        this.supervisor = supervisor;
        // The broker never pushes more unacked deliveries than the worker may hold in flight.
        int prefetch = Math.max(1, Math.min(settings.prefetch(), settings.flow().capacity()));
        List<SupervisedChannel.Subscription> subscriptions = new ArrayList<>();
        for (String queue : settings.queues()) {
            String tag = settings.consumerId() + "-" + queue; // the Go SDK's consumer tag format
            queueByConsumerTag.put(tag, queue);
            subscriptions.add(new SupervisedChannel.Subscription("queue " + queue, tag, ch -> {
                jobs.declarations().forget(queue); // (re)subscribing: the queue may have been deleted meanwhile
                jobs.declarations().ensureJobQueue(queue);
                return jobs.names().workQueue(queue);
            }));
        }
        this.channel = new SupervisedChannel(
                "rabbitmq jobs consumer " + settings.consumerId(),
                connection,
                prefetch,
                subscriptions,
                this::onDelivery,
                supervisor,
                supervisionInterval);
    }

    void start() {
        channel.start();
    }

    private void onDelivery(
            long epoch, String consumerTag, Envelope envelope, AMQP.BasicProperties properties, byte[] body)
            throws IOException {
        if (!fetching) {
            // Stopping: hand it straight back so another worker takes it now rather than at our close.
            channel.requeue(epoch, envelope.getDeliveryTag());
            return;
        }
        String queue = queueByConsumerTag.get(consumerTag);
        JobBody decoded = jobs.codec().decode(body);
        sink.accept(new RabbitMqDelivery(
                this,
                queue,
                decoded,
                envelope.getDeliveryTag(),
                envelope.isRedeliver(),
                consumerTag,
                epoch,
                properties == null ? null : properties.getMessageId()));
    }

    CompletableFuture<Void> ack(long epoch, long deliveryTag) {
        try {
            channel.ack(epoch, deliveryTag);
            return CompletableFuture.completedFuture(null);
        } catch (IOException | AlreadyClosedException | BackstageException e) {
            return CompletableFuture.failedFuture(
                    e instanceof BackstageException
                            ? e
                            : new StaleDeliveryException(
                                    "ack of delivery " + deliveryTag + " failed: " + RabbitMqConnections.describe(e)));
        }
    }

    /**
     * Hands a delivery back after {@link #ABANDON_PAUSE}: a worker that leaves a task to others
     * (unknown-task policy {@code leave-pending}) would otherwise bounce the message between itself and the
     * broker as fast as the network allows when no other worker takes it. At shutdown the channel closes
     * first and the broker requeues the delivery at once; the delayed requeue then finds it stale.
     */
    void requeueLater(long epoch, long deliveryTag) {
        try {
            supervisor.schedule(() -> requeue(epoch, deliveryTag), ABANDON_PAUSE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            requeue(epoch, deliveryTag); // the provider is closing: no pause to wait for
        }
    }

    void requeue(long epoch, long deliveryTag) {
        try {
            channel.requeue(epoch, deliveryTag);
        } catch (StaleDeliveryException e) {
            log.debug("requeue of {} skipped: {}", deliveryTag, e.getMessage());
        } catch (IOException | AlreadyClosedException e) {
            log.warn(
                    "requeue of delivery {} failed; the broker redelivers it when the channel closes: {}",
                    deliveryTag,
                    RabbitMqConnections.describe(e));
        }
    }

    CompletableFuture<Void> retry(RabbitMqDelivery delivery, Duration delay) {
        CompletableFuture<Void> copied;
        try {
            channel.checkCurrent(delivery.epoch(), delivery.deliveryTag());
            OutgoingJob copy = new OutgoingJob(
                    delivery.queue(),
                    delivery.taskName(),
                    delivery.payloadJson(),
                    delivery.enqueuedAtMs(),
                    delivery.meta(),
                    delivery.deliveryCount() + 1,
                    delivery.jobId());
            copied = publishCopy(copy, delay);
        } catch (RuntimeException e) {
            copied = CompletableFuture.failedFuture(e);
        }
        return copied.thenCompose(ignored -> ack(delivery.epoch(), delivery.deliveryTag()));
    }

    private CompletableFuture<Void> publishCopy(OutgoingJob copy, Duration delay) {
        if (delay.isZero() || delay.isNegative()) {
            return jobs.publishAsync(copy);
        }
        DelaysCapability capability = delays.orElseThrow(() -> new BackstageException("retry of job " + copy.jobId()
                + " after " + delay.toMillis() + " ms needs a delays capability, and this worker has none"));
        Instant runAt = Instant.now().plus(delay);
        if (capability instanceof RabbitMqDelays own) {
            return own.scheduleAsync(copy, runAt);
        }
        // A supplied capability (e.g. Redis) stores synchronously with its own durability guarantee.
        capability.schedule(copy, runAt);
        return CompletableFuture.completedFuture(null);
    }

    CompletableFuture<Void> deadLetter(RabbitMqDelivery delivery, String error) {
        CompletableFuture<Void> published;
        try {
            channel.checkCurrent(delivery.epoch(), delivery.deliveryTag());
            jobs.declarations().ensureJobQueue(delivery.queue());
            byte[] body = jobs.codec()
                    .deadLetter(
                            delivery.body(),
                            error,
                            delivery.deliveryId(),
                            delivery.deliveryCount(),
                            delivery.jobId(),
                            System.currentTimeMillis());
            published = jobs.publishBody(
                    delivery.queue(),
                    jobs.names().deadLetterQueue(delivery.queue()),
                    RabbitMqJobs.properties(delivery.jobId(), Map.of()),
                    body);
        } catch (RuntimeException e) {
            published = CompletableFuture.failedFuture(e);
        }
        return published.thenCompose(ignored -> ack(delivery.epoch(), delivery.deliveryTag()));
    }

    @Override
    public void stopFetching() {
        fetching = false;
        channel.stopConsuming();
    }

    @Override
    public void close() {
        fetching = false;
        channel.close();
    }
}
