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
 * <p>Two sources, each with its own weakness. The management API gives ready and unacked from one snapshot per
 * queue, so a message moving from ready to unacked is never counted in neither figure (which could let an
 * autoscaler see zero work while a job is in flight), plus the queue's publish and ack counters
 * ({@code message_stats}), which the operator's autoscaler turns into arrival and completion rates (a retry or
 * dead-letter acks the original, so "acked" means settled, as on Redis). But a snapshot lags: the broker refreshes
 * it every statistics interval, and a quorum queue's figures come from its leader's tick (every 5 s) before that,
 * so a quorum queue that just received messages can read {@code messages: 0} for ten seconds and more on a loaded
 * broker. AMQP's passive declare asks the queue itself and is current, but counts ready messages only.
 *
 * <p>So: every queue is checked over AMQP first. A work queue that does not exist is an error
 * ({@code QueueNotFound}), never a backlog of 0: a pool on a misspelt or deleted queue must not be scaled down on
 * it. Undelivered is the snapshot's ready count or the live one, whichever is larger (a stale snapshot never
 * hides ready jobs); in flight is the snapshot's. Dead letters are the dead-letter queue's live count (nobody
 * consumes it, so ready is its depth); only a live 0 against a snapshot that says more takes the snapshot, because
 * RabbitMQ answers a passive declare of a quorum queue with 0 when the queue's leader does not answer within
 * 250 ms (a loaded or failing node). Without the API the probe counts ready messages only: {@code inFlight} is then
 * -1 and the note says so; while the AMQP connection cannot ask (it is recovering after its node failed) the
 * management API's figures are used alone, as they come from any node that answers. The consumer group is
 * ignored: RabbitMQ queues have no groups.
 */
final class RabbitMqBacklogProbe implements BacklogProbe {
    static final String ENABLE_HINT = "enable it with `rabbitmq-plugins enable rabbitmq_management`";
    /** The reason of the error for a work queue the broker does not have. */
    static final String QUEUE_NOT_FOUND = "QueueNotFound";

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
        List<String> missing = new ArrayList<>();
        String managementProblem = management.isEmpty() ? "management API disabled (managementUrl=off)" : null;
        for (String queue : queues) {
            Live live = live(queue);
            if (live.counted() && live.ready().isEmpty()) {
                missing.add(names.workQueue(queue));
                continue;
            }
            if (managementProblem == null) {
                try {
                    Optional<QueueBacklog> measured = fromManagement(queue, live, management.get());
                    if (measured.isEmpty()) {
                        missing.add(names.workQueue(queue));
                    } else {
                        result.add(measured.get());
                    }
                    continue;
                } catch (ManagementApi.UnavailableException e) {
                    managementProblem = e.getMessage();
                }
            }
            if (!live.counted()) {
                throw new BacklogUnavailableException(
                        "BrokerUnreachable",
                        "cannot measure RabbitMQ backlog: " + live.problem().getMessage() + "; and "
                                + managementProblem,
                        live.problem());
            }
            result.add(new QueueBacklog(
                    queue,
                    live.ready().getAsLong(),
                    -1,
                    live.deadLetters(),
                    null,
                    List.of(),
                    managementProblem + ": only ready messages are counted (in flight unknown); " + ENABLE_HINT));
        }
        if (!missing.isEmpty()) {
            throw new BacklogUnavailableException(
                    QUEUE_NOT_FOUND,
                    "RabbitMQ has no queue " + String.join(", ", missing)
                            + " (vhost " + vhost + "): check the queue names and the key prefix, or declare the queues "
                            + "(the topology does); no backlog is reported for a queue that does not exist",
                    null);
        }
        return new BacklogReport(Instant.now(), result);
    }

    /**
     * The queue's own counts over AMQP, or the problem when the connection cannot ask (recovering after its node
     * failed, say: the management API of another node may still answer).
     */
    private record Live(OptionalLong ready, long deadLetters, RuntimeException problem) {
        boolean counted() {
            return problem == null;
        }
    }

    private Live live(String queue) {
        try {
            OptionalLong ready = admin.ready(names.workQueue(queue));
            long deadLetters = ready.isEmpty()
                    ? 0
                    : admin.ready(names.deadLetterQueue(queue)).orElse(0);
            return new Live(ready, deadLetters, null);
        } catch (BrokerUnavailableException | BrokerAdmin.BrokerCallException e) {
            return new Live(OptionalLong.empty(), 0, e);
        }
    }

    /** Empty when the API does not know the work queue and AMQP could not ask. */
    private Optional<QueueBacklog> fromManagement(String queue, Live live, ManagementApi api)
            throws ManagementApi.UnavailableException {
        Optional<ManagementApi.QueueStats> work = api.queue(vhost, names.workQueue(queue));
        Optional<ManagementApi.QueueStats> dead = api.queue(vhost, names.deadLetterQueue(queue));
        Long snapshotDead = dead.map(ManagementApi.QueueStats::total).orElse(null);
        long deadLetters = (!live.counted() || live.deadLetters() == 0) && snapshotDead != null
                ? snapshotDead
                : live.deadLetters();
        if (!live.counted() && (work.isEmpty() || !work.get().complete())) {
            if (work.isEmpty()) {
                return Optional.empty();
            }
            throw new BacklogUnavailableException(
                    "BrokerUnreachable",
                    "cannot measure RabbitMQ backlog: "
                            + live.problem().getMessage() + "; and the management API has no statistics for "
                            + names.workQueue(queue) + " yet",
                    live.problem());
        }
        long liveReady = live.counted() ? live.ready().getAsLong() : 0;
        if (work.isEmpty() || !work.get().complete()) {
            // Not listed yet (created a moment ago) or listed without figures (statistics not collected yet).
            return Optional.of(new QueueBacklog(
                    queue,
                    liveReady,
                    -1,
                    deadLetters,
                    null,
                    List.of(),
                    "the management "
                            + "API has no statistics for " + names.workQueue(queue)
                            + " yet: only ready messages are counted "
                            + "(in flight unknown)"));
        }
        ManagementApi.QueueStats stats = work.get();
        Long oldestAgeMs = null;
        if (stats.ready() > 0 && stats.headMessageTimestampSeconds() != null) {
            // AMQP timestamps have whole seconds; good enough to tell a fresh backlog from a stale one.
            oldestAgeMs = Math.max(0, System.currentTimeMillis() - stats.headMessageTimestampSeconds() * 1000);
        }
        String source = !live.counted()
                ? "ready and unacked from the management API (AMQP cannot count now: "
                        + live.problem().getMessage() + ")"
                : liveReady > stats.ready()
                        ? "ready from AMQP (the management snapshot, " + stats.ready()
                                + " ready, lags), unacked from the management API"
                        : "ready and unacked from the management API";
        String counters = stats.published() != null
                ? "; arrivals and completions from its publish and ack counters"
                : "; no publish/ack counters yet (the broker keeps message statistics from the first message on)";
        return Optional.of(new QueueBacklog(
                queue,
                Math.max(liveReady, stats.ready()),
                stats.unacked(),
                deadLetters,
                oldestAgeMs,
                List.of(),
                source + " (refreshed by the broker every few seconds)" + counters,
                stats.published(),
                stats.acked()));
    }
}
