package dev.backstage.runtime.rabbitmq;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Makes sure a job queue and its dead-letter queue exist before anything is published to or read from
 * them, once per queue and process. Publishing to the default exchange with a routing key that names no
 * queue is silently dropped (and still confirmed), so this is what keeps a first enqueue from vanishing.
 * Publishes are also {@code mandatory}; a return {@link #forget}s the queue so the next use declares again.
 */
final class QueueDeclarations {
    private final RabbitMqNames names;
    private final BrokerAdmin admin;
    private final Set<String> ensured = ConcurrentHashMap.newKeySet();

    QueueDeclarations(RabbitMqNames names, BrokerAdmin admin) {
        this.names = names;
        this.admin = admin;
    }

    void ensureJobQueue(String queue) {
        if (ensured.contains(queue)) {
            return;
        }
        admin.ensureQueue(names.workQueue(queue), null);
        admin.ensureQueue(names.deadLetterQueue(queue), null);
        ensured.add(queue);
    }

    void forget(String queue) {
        ensured.remove(queue);
    }
}
