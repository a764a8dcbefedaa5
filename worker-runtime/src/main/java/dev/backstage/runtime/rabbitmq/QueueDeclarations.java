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
    private final QueueArguments arguments;
    private final Set<String> ensured = ConcurrentHashMap.newKeySet();

    QueueDeclarations(RabbitMqNames names, BrokerAdmin admin, QueueArguments arguments) {
        this.names = names;
        this.admin = admin;
        this.arguments = arguments;
    }

    QueueArguments arguments() {
        return arguments;
    }

    /** The dead-letter queue first: a quorum work queue names it as the target of its delivery limit. */
    void ensureJobQueue(String queue) {
        if (ensured.contains(queue)) {
            return;
        }
        admin.ensureQueue(names.deadLetterQueue(queue), arguments.deadLetterQueue());
        admin.ensureQueue(names.workQueue(queue), arguments.workQueue(names.deadLetterQueue(queue)));
        ensured.add(queue);
    }

    void forget(String queue) {
        ensured.remove(queue);
    }
}
