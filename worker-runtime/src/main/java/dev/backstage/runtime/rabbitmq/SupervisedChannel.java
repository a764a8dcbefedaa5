package dev.backstage.runtime.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.impl.recovery.AutorecoveringChannel;
import com.rabbitmq.client.impl.recovery.RecoveryAwareChannelN;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consuming channel that keeps its subscriptions alive: after a connection loss (once amqp-client has
 * reopened the channel), after a channel-level close (a new channel), and after the broker cancelled a
 * consumer (its queue was deleted: the queue is declared again). A supervision loop named
 * {@code backstage-rabbitmq-supervisor} checks every {@code interval} and logs each failed attempt.
 *
 * <p>Every close of the channel starts a new <em>epoch</em>. A delivery remembers the epoch it arrived
 * in; once the epoch has moved on, the broker has already requeued that delivery, so it must be neither
 * acked nor copied ({@link #ack} fails with {@link StaleDeliveryException}).
 *
 * <p>Acks are coalesced per epoch ({@link AckWatermark}): {@link #ack} records the tag, and whichever thread
 * finds no flush running writes one {@code basic.ack(multiple=true)} up to the highest acked tag below which every
 * tag is settled. A requeue writes its own {@code basic.reject} before its tag counts as settled, so a multiple
 * ack never covers a message that is to go back to the queue.
 *
 * <p>Kept as one class: the epoch, its channel, its ack watermark and the subscriptions set up again on a new channel
 * change together under one lock; split apart, an ack and a recovery could see different epochs.
 */
final class SupervisedChannel implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SupervisedChannel.class);

    /** Declares what a subscription reads (queue, bindings) on the given channel and returns the queue name. */
    @FunctionalInterface
    interface QueueSetup {
        String declare(Channel channel) throws IOException;
    }

    @FunctionalInterface
    interface DeliveryHandler {
        void handle(long epoch, String consumerTag, Envelope envelope, AMQP.BasicProperties properties, byte[] body)
                throws IOException;
    }

    /** One basic.consume the channel keeps alive. */
    static final class Subscription {
        final String label;
        final String consumerTag;
        final QueueSetup setup;
        volatile boolean active;
        volatile String queue;

        Subscription(String label, String consumerTag, QueueSetup setup) {
            this.label = label;
            this.consumerTag = consumerTag;
            this.setup = setup;
        }

        String queue() {
            return queue;
        }
    }

    private final String name;
    private final Connection connection;
    private final int prefetch;
    private final List<Subscription> subscriptions;
    private final DeliveryHandler handler;
    private final ScheduledExecutorService supervisor;
    private final Duration interval;
    /** The epoch number, the channel it belongs to and its acks (null until it subscribes). */
    private record Epoch(long number, Channel channel, AckWatermark acks) {}

    private final AtomicReference<Epoch> epoch = new AtomicReference<>(new Epoch(0, null, null));
    private final Object lock = new Object();
    private volatile Channel channel;
    private volatile boolean reopen;
    private volatile boolean stopped;
    private ScheduledFuture<?> supervision;

    SupervisedChannel(
            String name,
            Connection connection,
            int prefetch,
            List<Subscription> subscriptions,
            DeliveryHandler handler,
            ScheduledExecutorService supervisor,
            Duration interval) {
        this.name = name;
        this.connection = connection;
        this.prefetch = prefetch;
        this.subscriptions = List.copyOf(subscriptions);
        this.handler = handler;
        this.supervisor = supervisor;
        this.interval = interval;
    }

    /** Subscribes now (a failure here is thrown: a worker must not start half-subscribed), then supervises. */
    void start() {
        try {
            ensureSubscribed();
        } catch (IOException | RuntimeException e) {
            close();
            throw new BrokerUnavailableException(name + ": cannot subscribe: " + RabbitMqConnections.describe(e), e);
        }
        supervision = supervisor.scheduleWithFixedDelay(
                this::supervise, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    long epoch() {
        return epoch.get().number();
    }

    private void supervise() {
        if (stopped) {
            return;
        }
        try {
            Epoch current = epoch.get();
            if (current.acks() != null) {
                flush(current, current.acks().stuck());
            }
        } catch (IOException | RuntimeException e) {
            log.debug(
                    "{}: writing acks held behind an unsettled delivery failed: {}",
                    name,
                    RabbitMqConnections.describe(e));
        }
        try {
            ensureSubscribed();
        } catch (IOException | RuntimeException e) {
            log.warn(
                    "{}: resubscribing failed, next attempt in {} ms: {}",
                    name,
                    interval.toMillis(),
                    RabbitMqConnections.describe(e));
        }
    }

    private void ensureSubscribed() throws IOException {
        synchronized (lock) {
            if (stopped || !connection.isOpen()) {
                return; // amqp-client is reconnecting; the next round resubscribes
            }
            if (channel == null || reopen) {
                openChannel();
            }
            Channel ch = channel;
            if (!ch.isOpen()) {
                return; // reopened by amqp-client's recovery shortly
            }
            Epoch current = epoch.get();
            if (current.acks() == null
                    && subscriptions.stream().anyMatch(s -> !s.active)
                    && !epoch.compareAndSet(
                            current,
                            new Epoch(
                                    current.number(),
                                    ch,
                                    new AckWatermark(lastTagBefore(ch), prefetch / 2, Math.min(32, prefetch / 8))))) {
                return; // closed meanwhile: the next round subscribes in the new epoch
            }
            for (Subscription subscription : subscriptions) {
                if (!subscription.active) {
                    subscription.queue = subscription.setup.declare(ch);
                    ch.basicConsume(subscription.queue, false, subscription.consumerTag, adapter(subscription));
                    subscription.active = true;
                    log.info("{}: consuming {} (prefetch {})", name, subscription.queue, prefetch);
                }
            }
        }
    }

    private void openChannel() throws IOException {
        Channel ch = connection.createChannel();
        // Per consumer, the allowance shared among the queues this channel reads (at least one each): a global
        // (per-channel) limit would be exact, but quorum queues refuse to be consumed under one (540
        // NOT_IMPLEMENTED, closing the connection), and a worker cannot know every queue's type beforehand.
        ch.basicQos(Math.max(1, prefetch / subscriptions.size()), false);
        ch.addShutdownListener(cause -> closed(ch, cause));
        if (ch instanceof Recoverable recoverable) {
            recoverable.addRecoveryListener(new RecoveryListener() {
                @Override
                public void handleRecovery(Recoverable r) {
                    supervisor.execute(SupervisedChannel.this::supervise); // resubscribe now, not a tick later
                }

                @Override
                public void handleRecoveryStarted(Recoverable r) {}
            });
        }
        subscriptions.forEach(s -> s.active = false);
        channel = ch;
        reopen = !ch.isOpen(); // closed before it was ours to watch: the listener ignored it, so reopen here
        epoch.updateAndGet(e -> new Epoch(e.number() + 1, ch, null));
    }

    /**
     * The delivery tag before the channel's next delivery: 0 on a new channel; amqp-client's automatic recovery
     * keeps the channel object and numbers the recovered channel's deliveries on from the highest tag it had
     * seen (its active offset), so an ack of an older tag is never mistaken for a new one.
     */
    private static long lastTagBefore(Channel ch) {
        if (ch instanceof AutorecoveringChannel recovering
                && recovering.getDelegate() instanceof RecoveryAwareChannelN delegate) {
            return delegate.getActiveDeliveryTagOffset();
        }
        return 0;
    }

    private void closed(Channel ch, ShutdownSignalException cause) {
        if (ch != channel) {
            return;
        }
        epoch.updateAndGet(e -> new Epoch(e.number() + 1, ch, null));
        subscriptions.forEach(s -> s.active = false);
        if (cause.isInitiatedByApplication() || stopped) {
            return;
        }
        if (cause.isHardError()) {
            log.warn(
                    "{}: connection lost; unacked deliveries go back to the queue and consuming resumes after "
                            + "recovery",
                    name);
        } else {
            reopen = true;
            log.warn("{}: channel closed by the broker ({}); reopening", name, cause.getMessage());
        }
    }

    private Consumer adapter(Subscription subscription) {
        return new Consumer() {
            @Override
            public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body)
                    throws IOException {
                Epoch current = epoch.get();
                if (current.acks() != null) {
                    current.acks().delivered(envelope.getDeliveryTag());
                }
                handler.handle(current.number(), tag, envelope, properties, body);
            }

            @Override
            public void handleCancel(String tag) {
                subscription.active = false;
                if (!stopped) {
                    log.warn(
                            "{}: the broker cancelled the consumer of {} (queue deleted?); it is declared again "
                                    + "within {} ms",
                            name,
                            subscription.queue,
                            interval.toMillis());
                }
            }

            @Override
            public void handleConsumeOk(String tag) {}

            @Override
            public void handleCancelOk(String tag) {}

            @Override
            public void handleShutdownSignal(String tag, ShutdownSignalException cause) {}

            @Override
            public void handleRecoverOk(String tag) {}
        };
    }

    /**
     * Acks on the channel the delivery came from, unless that channel has closed since: records the ack, and
     * writes it (with every other ack recorded meanwhile) unless another thread is writing acks right now, which
     * then writes this one too before it stops.
     */
    void ack(long deliveryEpoch, long deliveryTag) throws IOException {
        Epoch current = live(deliveryEpoch, deliveryTag);
        if (current.acks().acked(deliveryTag)) {
            flush(current, current.acks().next());
        }
    }

    /** Puts a delivery back at the head of its queue at once (for another consumer, or later). */
    void requeue(long deliveryEpoch, long deliveryTag) throws IOException {
        Epoch current = live(deliveryEpoch, deliveryTag);
        current.channel().basicReject(deliveryTag, true);
        if (current.acks().framed(deliveryTag)) { // only now: the reject is on the wire before any multiple ack
            flush(current, current.acks().next());
        }
    }

    void checkCurrent(long deliveryEpoch, long deliveryTag) {
        live(deliveryEpoch, deliveryTag);
    }

    /** Writes {@code first} and what the watermark hands out after it, as the one flusher of the epoch. */
    private static void flush(Epoch current, AckWatermark.Flush first) throws IOException {
        try {
            for (AckWatermark.Flush f = first; f != null; f = current.acks().next()) {
                for (long single : f.singles()) {
                    current.channel().basicAck(single, false);
                }
                if (f.multipleUpTo() > 0) {
                    current.channel().basicAck(f.multipleUpTo(), true);
                }
            }
        } catch (IOException | RuntimeException e) {
            current.acks().abandon(); // the channel is gone: the broker redelivers what it still held
            throw e;
        }
    }

    private Epoch live(long deliveryEpoch, long deliveryTag) {
        Epoch current = epoch.get();
        Channel ch = current.channel();
        if (deliveryEpoch != current.number()
                || current.acks() == null
                || current.acks().before(deliveryTag)
                || ch == null
                || !ch.isOpen()) {
            throw new StaleDeliveryException(
                    name + ": the channel that carried delivery " + deliveryTag + " closed; the broker redelivers it");
        }
        return current;
    }

    /** Stops new deliveries; settling those already handed out keeps working. */
    void stopConsuming() {
        synchronized (lock) {
            stopped = true;
            Channel ch = channel;
            for (Subscription subscription : subscriptions) {
                if (subscription.active && ch != null && ch.isOpen()) {
                    try {
                        ch.basicCancel(subscription.consumerTag);
                    } catch (IOException | AlreadyClosedException e) {
                        log.warn(
                                "{}: cancelling the consumer of {} failed (closing the channel stops it): {}",
                                name,
                                subscription.queue,
                                RabbitMqConnections.describe(e));
                    }
                }
                subscription.active = false;
            }
        }
    }

    /** Closes the channel: the broker requeues whatever is still unacked. */
    @Override
    public void close() {
        synchronized (lock) {
            stopped = true;
            if (supervision != null) {
                supervision.cancel(false);
            }
            Channel ch = channel;
            Epoch current = epoch.get();
            if (current.acks() != null && ch != null && ch.isOpen()) {
                try {
                    flush(current, current.acks().drain()); // owed acks go out before the channel closes
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (IOException | RuntimeException e) {
                    log.warn(
                            "{}: writing the last acks failed; the broker redelivers those messages: {}",
                            name,
                            RabbitMqConnections.describe(e));
                }
            }
            if (ch != null) {
                BrokerAdmin.closeChannel(ch);
            }
        }
    }
}
