package dev.backstage.runtime.rabbitmq;

/**
 * Every broker-side name the provider uses, in one place (docs/wire-format.md). Names are dot-separated under
 * the prefix {@code {p}}:
 *
 * <ul>
 *   <li>work queue {@code {p}.{q}}, dead-letter queue {@code {p}.{q}.dead-letter}
 *   <li>topics exchange {@code {p}.topics}; group queue {@code {p}.topic.{t}.{group}}; a subscription's dead
 *       letters {@code {p}.topic.{t}.{group}.dead-letter} or {@code {p}.topic.{t}.fanout.{consumerId}.dead-letter}
 *   <li>broadcast fan-out exchange {@code {p}.broadcast}; per-worker queue {@code {p}.broadcast.{consumerId}-{unique}}
 *   <li>delayed-message exchange {@code {p}.delayed} (plugin path)
 *   <li>delay ladder {@code {p}.delay-level.NN} (a topic exchange and a queue per level) and
 *       {@code {p}.delay-deliver} (fallback path). Work queues named {@code delay-level.*} or
 *       {@code delay-deliver} would collide with these, so those queue names are reserved.
 * </ul>
 */
record RabbitMqNames(String prefix) {
    String workQueue(String queue) {
        return prefix + "." + queue;
    }

    String deadLetterQueue(String queue) {
        return workQueue(queue) + ".dead-letter";
    }

    String topicsExchange() {
        return prefix + ".topics";
    }

    String topicGroupQueue(String topic, String group) {
        return prefix + ".topic." + topic + "." + group;
    }

    /**
     * A topic subscription's dead letters ({@link TopicDeadLetters}): {@code {p}.topic.{t}.{group}.dead-letter}, or
     * {@code {p}.topic.{t}.fanout.{consumerId}.dead-letter} for a fan-out subscriber ({@code group} null): durable,
     * so they outlive the subscriber's temporary queue.
     */
    String topicDeadLetterQueue(String topic, String group, String consumerId) {
        return prefix + ".topic." + topic + "." + (group != null ? group : "fanout." + consumerId) + ".dead-letter";
    }

    /** Client-named (not server-named) so the provider can republish a failed message to it by name. */
    String topicFanOutQueue(String topic, String consumerId, String unique) {
        return prefix + ".topic." + topic + ".fanout." + consumerId + "-" + unique;
    }

    /** The fan-out exchange every worker's broadcast queue is bound to. */
    String broadcastExchange() {
        return prefix + ".broadcast";
    }

    /** A worker's exclusive broadcast queue; client-named so a retry can republish to it. */
    String broadcastQueue(String consumerId, String unique) {
        return prefix + ".broadcast." + consumerId + "-" + unique;
    }

    String delayedExchange() {
        return prefix + ".delayed";
    }

    String delayLevel(int level) {
        return String.format("%s.delay-level.%02d", prefix, level);
    }

    String delayDeliverExchange() {
        return prefix + ".delay-deliver";
    }
}
