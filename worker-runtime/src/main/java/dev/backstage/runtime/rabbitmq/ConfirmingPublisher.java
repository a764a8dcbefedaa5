package dev.backstage.runtime.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes on one confirm-mode channel and completes each publish when the broker confirms it.
 *
 * <p>A publish fails (and whatever was chained on it, such as acking the original delivery, does not
 * happen) when the broker nacks it, returns it as unroutable ({@code mandatory} publishes to a queue that
 * does not exist), the channel closes before the confirm, no confirm arrives within {@code confirmTimeout},
 * or the connection is down when it is attempted.
 *
 * <p>Futures complete on the {@code completions} executor, never on the connection's I/O thread, so a
 * continuation may talk to the broker again.
 */
final class ConfirmingPublisher implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ConfirmingPublisher.class);

    /** Correlates a basic.return with its pending publish (set on mandatory publishes only). */
    static final String PUBLISH_SEQ_HEADER = "backstage-publish-seq";

    private final Connection connection;
    private final Duration confirmTimeout;
    private final ScheduledExecutorService completions;
    private final Object lock = new Object();
    private final NavigableMap<Long, Pending> pending = new TreeMap<>(); // guarded by lock
    private Channel channel; // guarded by lock; replaced after a channel-level close
    private boolean closed; // guarded by lock

    ConfirmingPublisher(Connection connection, Duration confirmTimeout, ScheduledExecutorService completions) {
        this.connection = connection;
        this.confirmTimeout = confirmTimeout;
        this.completions = completions;
    }

    private static final class Pending {
        final CompletableFuture<Void> future = new CompletableFuture<>();
        final String target;
        volatile String returned;
        ScheduledFuture<?> timeout;

        Pending(String target) {
            this.target = target;
        }
    }

    Duration confirmTimeout() {
        return confirmTimeout;
    }

    /** Publishes and returns a future that completes once the broker confirmed the message. */
    CompletableFuture<Void> publish(
            String exchange, String routingKey, boolean mandatory, AMQP.BasicProperties properties, byte[] body) {
        String target = exchange.isEmpty() ? "queue " + routingKey : "exchange " + exchange + " (" + routingKey + ")";
        Pending entry = new Pending(target);
        synchronized (lock) {
            if (closed) {
                return failed(
                        new BrokerUnavailableException("rabbitmq provider is closed: cannot publish to " + target));
            }
            if (!connection.isOpen()) {
                return failed(new BrokerUnavailableException("RabbitMQ is unreachable (publishing connection "
                        + "recovering): nothing was published to " + target));
            }
            long seq;
            try {
                Channel ch = channel();
                seq = ch.getNextPublishSeqNo();
                pending.put(seq, entry);
                AMQP.BasicProperties props = mandatory ? withSeq(properties, seq) : properties;
                ch.basicPublish(exchange, routingKey, mandatory, props, body);
            } catch (IOException | AlreadyClosedException e) {
                pending.values().remove(entry);
                return failed(new BrokerUnavailableException(
                        "publishing to " + target + " failed: " + RabbitMqConnections.describe(e), e));
            }
            final long key = seq;
            entry.timeout =
                    completions.schedule(() -> timedOut(key, entry), confirmTimeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        return entry.future;
    }

    /** Publishes and waits for the confirm; throws the failure as is. */
    void publishAndWait(
            String exchange, String routingKey, boolean mandatory, AMQP.BasicProperties properties, byte[] body) {
        await(publish(exchange, routingKey, mandatory, properties, body));
    }

    static void await(CompletableFuture<Void> future) {
        try {
            future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PublishNotConfirmedException("interrupted while waiting for the broker's confirm", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new PublishNotConfirmedException("publish failed: " + e.getCause(), e.getCause());
        }
    }

    /** The confirm channel, opened on first use and again after a channel-level close. */
    private Channel channel() throws IOException {
        if (channel != null) {
            if (!channel.isOpen()) {
                // Connection-level loss: amqp-client reopens this same channel; until then we cannot publish.
                throw new IOException("the publishing channel is recovering after a connection loss");
            }
            return channel;
        }
        Channel ch = connection.createChannel();
        ch.confirmSelect();
        ch.addConfirmListener(new ConfirmListener() {
            @Override
            public void handleAck(long seq, boolean multiple) {
                settle(ch, seq, multiple, null);
            }

            @Override
            public void handleNack(long seq, boolean multiple) {
                settle(ch, seq, multiple, "the broker refused the message (basic.nack)");
            }
        });
        ch.addReturnListener(
                (ReturnListener) (code, text, exchange, routingKey, props, body) -> returned(ch, code, text, props));
        ch.addShutdownListener(cause -> channelClosed(ch, cause));
        channel = ch;
        return ch;
    }

    private static AMQP.BasicProperties withSeq(AMQP.BasicProperties properties, long seq) {
        Map<String, Object> headers =
                properties.getHeaders() == null ? new HashMap<>() : new HashMap<>(properties.getHeaders());
        headers.put(PUBLISH_SEQ_HEADER, seq);
        return properties.builder().headers(headers).build();
    }

    /** A return always precedes its confirm on the channel, so marking the entry is enough. */
    private void returned(Channel ch, int code, String text, AMQP.BasicProperties props) {
        Object seq = props.getHeaders() == null ? null : props.getHeaders().get(PUBLISH_SEQ_HEADER);
        if (!(seq instanceof Number number)) {
            log.warn("rabbitmq returned a message without a publish sequence: {} {}", code, text);
            return;
        }
        synchronized (lock) {
            Pending entry = ch == channel ? pending.get(number.longValue()) : null;
            if (entry != null) {
                entry.returned = code + " " + text;
            }
        }
    }

    private void settle(Channel ch, long seq, boolean multiple, String nackReason) {
        List<Pending> done = new ArrayList<>();
        synchronized (lock) {
            if (ch != channel) {
                return;
            }
            if (multiple) {
                NavigableMap<Long, Pending> head = pending.headMap(seq, true);
                done.addAll(head.values());
                head.clear();
            } else {
                Pending entry = pending.remove(seq);
                if (entry != null) {
                    done.add(entry);
                }
            }
        }
        for (Pending entry : done) {
            entry.timeout.cancel(false);
            if (nackReason != null) {
                complete(
                        entry,
                        new PublishNotConfirmedException(
                                "publish to " + entry.target + " not confirmed: " + nackReason));
            } else if (entry.returned != null) {
                complete(
                        entry,
                        new PublishNotConfirmedException("publish to " + entry.target + " was returned as unroutable ("
                                + entry.returned + "): does the queue exist?"));
            } else {
                complete(entry, null);
            }
        }
    }

    private void timedOut(long seq, Pending entry) {
        synchronized (lock) {
            if (pending.get(seq) != entry) {
                return;
            }
            pending.remove(seq);
        }
        entry.future.completeExceptionally(new PublishNotConfirmedException(
                "publish to " + entry.target + " not confirmed within " + confirmTimeout.toMillis() + " ms"));
    }

    /**
     * Every unconfirmed publish on a closed channel has an unknown fate: fail them all, so nothing that
     * depends on them (an ack) happens. After a channel-level close the next publish opens a new channel;
     * after a connection loss amqp-client reopens this one and the sequence numbers restart.
     */
    private void channelClosed(Channel ch, ShutdownSignalException cause) {
        List<Pending> lost;
        synchronized (lock) {
            lost = new ArrayList<>(pending.values());
            pending.clear();
            if (ch == channel && !cause.isHardError() && !cause.isInitiatedByApplication()) {
                channel = null;
                log.warn(
                        "rabbitmq publishing channel closed by the broker ({}); the next publish opens a new one",
                        cause.getMessage());
            }
        }
        for (Pending entry : lost) {
            entry.timeout.cancel(false);
            complete(
                    entry,
                    new PublishNotConfirmedException("channel closed before the broker confirmed the " + "publish to "
                            + entry.target + ": " + cause.getMessage()));
        }
    }

    private void complete(Pending entry, Throwable failure) {
        Runnable completion = () -> {
            if (failure == null) {
                entry.future.complete(null);
            } else {
                entry.future.completeExceptionally(failure);
            }
        };
        try {
            completions.execute(completion);
        } catch (java.util.concurrent.RejectedExecutionException shuttingDown) {
            completion.run(); // the provider is closing: complete here rather than leave a caller waiting
        }
    }

    private static CompletableFuture<Void> failed(Throwable failure) {
        return CompletableFuture.failedFuture(failure);
    }

    @Override
    public void close() {
        Channel ch;
        synchronized (lock) {
            closed = true;
            ch = channel;
            channel = null;
        }
        if (ch != null) {
            BrokerAdmin.closeChannel(ch); // fails what is still pending through channelClosed
        }
    }
}
