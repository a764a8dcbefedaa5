package dev.backstage.runtime.rabbitmq;

import dev.backstage.runtime.spi.BacklogProbe;
import dev.backstage.runtime.spi.BacklogReport;
import dev.backstage.runtime.spi.BacklogUnavailableException;
import dev.backstage.runtime.spi.QueueBacklog;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Backlog per queue: ready messages (undelivered), unacked messages (in flight) and the dead-letter
 * queue's depth.
 *
 * <p>Ready, unacked and dead letters come from the management API when it answers: one snapshot per queue,
 * so a message moving from ready to unacked is never counted in neither figure (which could let an
 * autoscaler see zero work while a job is in flight). The broker refreshes these figures every few seconds.
 * The same snapshot carries the queue's publish and ack counters ({@code message_stats}), which the operator's
 * autoscaler turns into arrival and completion rates (a retry or dead-letter acks the original, so "acked"
 * means settled, as on Redis); they lag the queue by the same refresh, so a rate is only as fine as it.
 * Without the API, AMQP (passive declare) counts ready messages only: {@code inFlight} is then -1 and the
 * note says so. The consumer group is ignored: RabbitMQ queues have no groups.
 */
final class RabbitMqBacklogProbe implements BacklogProbe {
    static final String ENABLE_HINT = "enable it with `rabbitmq-plugins enable rabbitmq_management`";

    private final RabbitMqNames names;
    private final BrokerAdmin admin;
    private final Optional<ManagementApi> management;
    private final String vhost;

    RabbitMqBacklogProbe(RabbitMqNames names, BrokerAdmin admin, Optional<ManagementApi> management, String vhost) {
        this.names = names;
        this.admin = admin;
        this.management = management;
        this.vhost = vhost;
    }

    @Override
    public BacklogReport measure(List<String> queues, String consumerGroup) {
        List<QueueBacklog> result = new ArrayList<>();
        String managementProblem = management.isEmpty() ? "management API disabled (managementUrl=off)" : null;
        try {
            for (String queue : queues) {
                if (managementProblem == null) {
                    try {
                        result.add(fromManagement(queue, management.get()));
                        continue;
                    } catch (ManagementApi.UnavailableException e) {
                        managementProblem = e.getMessage();
                    }
                }
                result.add(fromAmqp(queue, managementProblem + ": only ready messages are counted (in flight "
                        + "unknown); " + ENABLE_HINT));
            }
        } catch (BrokerUnavailableException | BrokerAdmin.BrokerCallException e) {
            throw new BacklogUnavailableException("BrokerUnreachable", "cannot measure RabbitMQ backlog: "
                    + e.getMessage(), e);
        }
        return new BacklogReport(Instant.now(), result);
    }

    private QueueBacklog fromManagement(String queue, ManagementApi api) throws ManagementApi.UnavailableException {
        Optional<ManagementApi.QueueStats> work = api.queue(vhost, names.workQueue(queue));
        Optional<ManagementApi.QueueStats> dead = api.queue(vhost, names.deadLetterQueue(queue));
        // A queue the API lists without figures (statistics not collected yet, or between two refreshes of a
        // quorum queue's) is not an empty one: count its ready messages over AMQP instead of reading 0.
        long deadLetters = dead.isEmpty() ? 0L : dead.get().total() != null ? dead.get().total()
                : admin.ready(names.deadLetterQueue(queue)).orElse(0);
        if (work.isEmpty()) {
            return new QueueBacklog(queue, 0, 0, deadLetters, null, List.of(),
                    "queue " + names.workQueue(queue) + " does not exist");
        }
        ManagementApi.QueueStats stats = work.get();
        if (!stats.complete()) {
            return fromAmqp(queue, "the management API has no statistics for " + names.workQueue(queue)
                    + " yet: only ready messages are counted (in flight unknown)");
        }
        Long oldestAgeMs = null;
        if (stats.ready() > 0 && stats.headMessageTimestampSeconds() != null) {
            // AMQP timestamps have whole seconds; good enough to tell a fresh backlog from a stale one.
            oldestAgeMs = Math.max(0, System.currentTimeMillis() - stats.headMessageTimestampSeconds() * 1000);
        }
        String counters = stats.published() != null
                ? "; arrivals and completions from its publish and ack counters"
                : "; no publish/ack counters yet (the broker keeps message statistics from the first message on)";
        return new QueueBacklog(queue, stats.ready(), stats.unacked(), deadLetters, oldestAgeMs, List.of(),
                "ready and unacked from the management API (refreshed by the broker every few seconds)" + counters,
                stats.published(), stats.acked());
    }

    private QueueBacklog fromAmqp(String queue, String note) {
        OptionalLong ready = admin.ready(names.workQueue(queue));
        long deadLetters = admin.ready(names.deadLetterQueue(queue)).orElse(0);
        if (ready.isEmpty()) {
            return new QueueBacklog(queue, 0, -1, deadLetters, null, List.of(),
                    "queue " + names.workQueue(queue) + " does not exist");
        }
        return new QueueBacklog(queue, ready.getAsLong(), -1, deadLetters, null, List.of(), note);
    }
}
