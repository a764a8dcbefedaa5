package dev.backstage.runtime.rabbitmq;

import java.util.HashMap;
import java.util.Map;

/**
 * The declaration arguments of every durable queue, by {@link QueueType}. Classic queues keep the arguments they
 * always had (none for work, dead-letter and group queues), so existing queues match what is declared.
 *
 * <p>Quorum queues get {@code x-queue-type: quorum} and:
 * <ul>
 *   <li>work and topic group queues: {@code x-delivery-limit} ({@code deliveryLimit}) with their dead-letter
 *       queue as dead-letter target. A delivery that is returned without being settled (its worker died or lost
 *       its connection while running it) counts; once the count passes the limit the broker moves the message to
 *       the dead-letter queue instead of redelivering it, so a job that crashes its worker every time ends there
 *       and does not loop. Failures the worker reports never count: the worker's {@code maxDeliveries} decides
 *       those, by publishing a fresh copy (a new message, counted from zero) or the dead letter itself.
 *   <li>dead-letter queues: a delivery limit so high that reading them never drops a message
 *       ({@link #deadLetterQueue}).
 *   <li>the delay ladder's level queues: their TTL and dead-letter exchange as before.
 *   <li>wherever the broker dead-letters (delivery limit, ladder expiry): {@code x-dead-letter-strategy:
 *       at-least-once} with {@code x-overflow: reject-publish} (which that strategy requires), so a message moves
 *       only once its target confirmed it: a node failure in between never drops it.
 * </ul>
 *
 * @param deliveryLimit returns of one delivery the broker allows before dead-lettering it (quorum only)
 */
record QueueArguments(QueueType type, int deliveryLimit) {
    static final String QUEUE_TYPE = "x-queue-type";
    static final String DELIVERY_LIMIT = "x-delivery-limit";
    /** The delivery limit of quorum dead-letter queues: no number of reads reaches it. */
    static final int DEAD_LETTER_DELIVERY_LIMIT = Integer.MAX_VALUE;

    static QueueArguments classic() {
        return new QueueArguments(QueueType.CLASSIC, RabbitMqSettings.DEFAULT_DELIVERY_LIMIT);
    }

    boolean quorum() {
        return type == QueueType.QUORUM;
    }

    /** A work or topic group queue whose unsettled-forever deliveries go to {@code deadLetterQueue}. */
    Map<String, Object> workQueue(String deadLetterQueue) {
        if (!quorum()) {
            return null;
        }
        Map<String, Object> args = atLeastOnceDeadLettering();
        args.put(DELIVERY_LIMIT, deliveryLimit);
        args.put("x-dead-letter-exchange", "");
        args.put("x-dead-letter-routing-key", deadLetterQueue);
        return args;
    }

    /**
     * A dead-letter queue: nothing expires or moves on from it. A quorum one gets {@value #DEAD_LETTER_DELIVERY_LIMIT}
     * as its delivery limit: reading dead letters (a page, redrive one, delete one) puts the messages read back
     * with {@code basic.nack(requeue)}, and RabbitMQ 4.0+ counts such returns against a default limit of 20 when
     * the queue sets none, then drops the message (a dead-letter queue has no target of its own). RabbitMQ 3.x
     * has no default and stores the argument as given.
     */
    Map<String, Object> deadLetterQueue() {
        if (!quorum()) {
            return null;
        }
        Map<String, Object> args = new HashMap<>();
        args.put(QUEUE_TYPE, type.wire());
        args.put(DELIVERY_LIMIT, DEAD_LETTER_DELIVERY_LIMIT);
        return args;
    }

    /** A delay ladder level: {@code base} (its TTL and dead-letter exchange) plus the type's own arguments. */
    Map<String, Object> delayLevel(Map<String, Object> base) {
        Map<String, Object> args = quorum() ? atLeastOnceDeadLettering() : new HashMap<>();
        args.putAll(base);
        return args;
    }

    private Map<String, Object> atLeastOnceDeadLettering() {
        Map<String, Object> args = new HashMap<>();
        args.put(QUEUE_TYPE, type.wire());
        args.put("x-dead-letter-strategy", "at-least-once");
        args.put("x-overflow", "reject-publish");
        return args;
    }
}
