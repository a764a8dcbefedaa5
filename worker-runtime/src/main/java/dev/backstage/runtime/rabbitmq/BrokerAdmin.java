package dev.backstage.runtime.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Short administrative calls (declare, passive checks, counts) on throwaway channels of the publishing
 * connection. A passive check that finds nothing makes the broker close the channel (404); using a
 * channel per call keeps that from touching any long-lived channel.
 */
final class BrokerAdmin {
    private static final Logger log = LoggerFactory.getLogger(BrokerAdmin.class);

    static final int NOT_FOUND = AMQP.NOT_FOUND;
    static final int COMMAND_INVALID = AMQP.COMMAND_INVALID;

    private final Connection connection;
    /** Existing classic queues this provider was asked to use as quorum queues, each reported once. */
    private final Set<String> classicUnderQuorum = ConcurrentHashMap.newKeySet();

    BrokerAdmin(Connection connection) {
        this.connection = connection;
    }

    @FunctionalInterface
    interface ChannelCall<T> {
        T apply(Channel channel) throws IOException;
    }

    <T> T call(String what, ChannelCall<T> call) {
        if (!connection.isOpen()) {
            throw new BrokerUnavailableException("RabbitMQ is unreachable (connection recovering): cannot " + what);
        }
        Channel channel;
        try {
            channel = connection.createChannel();
        } catch (IOException | AlreadyClosedException e) {
            throw new BrokerUnavailableException(
                    "RabbitMQ is unreachable: cannot " + what + ": " + RabbitMqConnections.describe(e), e);
        }
        try {
            return call.apply(channel);
        } catch (IOException | ShutdownSignalException e) {
            throw new BrokerCallException("cannot " + what + ": " + RabbitMqConnections.describe(e), replyCode(e), e);
        } finally {
            closeChannel(channel);
        }
    }

    static void closeChannel(Channel channel) {
        if (!channel.isOpen()) {
            return; // the broker closed it (a 404 on a passive check, say); nothing left to release
        }
        try {
            channel.close();
        } catch (IOException | TimeoutException | AlreadyClosedException e) {
            log.debug("closing a rabbitmq channel failed (it is released with its connection): {}", e.toString());
        }
    }

    /** True when the queue exists. */
    boolean queueExists(String name) {
        return ready(name).isPresent();
    }

    /** Ready messages in the queue, or empty when it does not exist. */
    OptionalLong ready(String name) {
        try {
            return call(
                    "check queue " + name,
                    ch -> OptionalLong.of(ch.queueDeclarePassive(name).getMessageCount()));
        } catch (BrokerCallException e) {
            if (e.replyCode() == NOT_FOUND) {
                return OptionalLong.empty();
            }
            throw e;
        }
    }

    boolean exchangeExists(String name) {
        try {
            return call("check exchange " + name, ch -> ch.exchangeDeclarePassive(name) != null);
        } catch (BrokerCallException e) {
            if (e.replyCode() == NOT_FOUND) {
                return false;
            }
            throw e;
        }
    }

    /**
     * Declares a durable queue unless it exists. A queue that exists is used as it is whatever its arguments, so
     * queues shaped by an operator (policies, arguments) and queues created by earlier versions keep working. When
     * {@code arguments} ask for a quorum queue and the existing one is classic, that is logged once per queue (a
     * WARN line saying what it means and what to do), not refused: RabbitMQ cannot change a queue's type in place,
     * and refusing would stop every existing classic topology after an upgrade that makes quorum the default.
     * Returns true when it was created.
     */
    boolean ensureQueue(String name, Map<String, Object> arguments) {
        if (queueExists(name)) {
            if (arguments != null
                    && QueueType.QUORUM.wire().equals(arguments.get(QueueArguments.QUEUE_TYPE))
                    && !classicUnderQuorum.contains(name)
                    && isClassic(name)
                    && classicUnderQuorum.add(name)) {
                log.warn(
                        "queue {} exists as a classic queue (not replicated) while queueType is quorum: it is used as"
                                + " it is; to move to quorum queues use another keyPrefix"
                                + " (docs/providers/rabbitmq-cluster.md, \"Migrating from classic to quorum\")",
                        name);
            }
            return false;
        }
        call("declare queue " + name, ch -> ch.queueDeclare(name, true, false, false, arguments));
        return true;
    }

    /**
     * True when the existing queue {@code name} is a classic queue. AMQP does not report a queue's type, so this
     * re-declares it with {@code x-queue-type: quorum} alone on a throwaway channel: a classic queue refuses exactly
     * that argument (406 "inequivalent arg 'x-queue-type'"); a quorum queue refuses one of its other arguments, or
     * nothing. The refusal closes only this call's channel; the queue is not changed either way.
     */
    boolean isClassic(String name) {
        Map<String, Object> probe = Map.of(QueueArguments.QUEUE_TYPE, QueueType.QUORUM.wire());
        try {
            call("check the type of queue " + name, ch -> ch.queueDeclare(name, true, false, false, probe));
            return false;
        } catch (BrokerCallException e) {
            // Another argument differs (a quorum queue declared with other settings, or shaped by a policy): its
            // type is not what the broker refused.
            return e.replyCode() == AMQP.PRECONDITION_FAILED
                    && e.getMessage().contains("inequivalent arg '" + QueueArguments.QUEUE_TYPE + "'");
        }
    }

    /** Declares a durable exchange unless it exists; true when it was created. */
    boolean ensureExchange(String name, String type, Map<String, Object> arguments) {
        if (exchangeExists(name)) {
            return false;
        }
        call("declare exchange " + name, ch -> ch.exchangeDeclare(name, type, true, false, arguments));
        return true;
    }

    /** The AMQP reply code of a channel or connection close behind {@code e}, or 0. */
    static int replyCode(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ShutdownSignalException signal) {
                if (signal.getReason() instanceof AMQP.Channel.Close close) {
                    return close.getReplyCode();
                }
                if (signal.getReason() instanceof AMQP.Connection.Close close) {
                    return close.getReplyCode();
                }
            }
        }
        return 0;
    }

    /** A broker call failed; {@link #replyCode()} tells e.g. 404 NOT_FOUND from 406 PRECONDITION_FAILED. */
    static final class BrokerCallException extends dev.backstage.runtime.spi.BackstageException {
        private final int replyCode;

        BrokerCallException(String message, int replyCode, Throwable cause) {
            super(message, cause);
            this.replyCode = replyCode;
        }

        int replyCode() {
            return replyCode;
        }
    }
}
