package dev.backstage.runtime.rabbitmq;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;
import dev.backstage.runtime.spi.BackstageException;
import dev.backstage.runtime.spi.DeadLetterEntry;
import dev.backstage.runtime.spi.DeadLetterQueue;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Reads and redrives {@code {p}.{q}.dead-letter}.
 *
 * <ul>
 *   <li>list: {@code basic.get} up to {@code limit} messages without acking, then one
 *       {@code basic.nack(multiple, requeue)}: the broker puts them back in their original positions. While a
 *       list runs, those messages are briefly unacked (and not counted by {@link #count}).
 *   <li>redrive: in batches of up to {@value #BATCH}: {@code basic.get} each, publish each job afresh to
 *       {@code {p}.{q}} (delivery count 1, same job id) without waiting, then wait for the batch's confirms and
 *       ack each dead letter whose job was confirmed. A failed publish puts its dead letter back and stops the
 *       redrive; a crash between the confirms and the acks can duplicate a batch's entries, never lose one.
 *   <li>page after an entry: a queue cannot be read from the middle, so a later page {@code basic.get}s from the
 *       head past the entry it follows, keeps only its own {@code limit} entries (the skipped ones are not kept in
 *       memory, only their delivery tags' range), then puts every message back with one
 *       {@code basic.nack(multiple, requeue)}. Page {@code n} costs {@code n × limit} messages read from the broker.
 *   <li>redrive one / delete one: {@code basic.get} from the head until the entry's id turns up; the entry is
 *       re-published (and confirmed) then acked, or just acked, and every message read before it is put back.
 *       Cost: the entry's position in the queue, in messages read and briefly unacked.
 * </ul>
 *
 * <p>Paging and single-entry actions read at most {@value #SCAN_LIMIT} messages deep and refuse beyond that with a
 * message saying so. While any read runs, the messages it holds are unacked: another reader (or a redrive-all)
 * does not see them until they are put back, in their original order on classic queues. An entry's id is its job
 * id (else its first delivery's id, else {@code position-N} from the head, which shifts as entries go).
 */
final class RabbitMqDeadLetters implements DeadLetterQueue {
    static final int BATCH = 100;
    /** How deep a later page or a single-entry action reads into the dead-letter queue at most. */
    static final int SCAN_LIMIT = 10_000;

    private final RabbitMqNames names;
    private final BrokerAdmin admin;
    private final RabbitMqJobs jobs;

    RabbitMqDeadLetters(RabbitMqNames names, BrokerAdmin admin, RabbitMqJobs jobs) {
        this.names = names;
        this.admin = admin;
        this.jobs = jobs;
    }

    @Override
    public List<DeadLetterEntry> list(String queue, int limit) {
        String dlq = names.deadLetterQueue(queue);
        if (limit <= 0 || !admin.queueExists(dlq)) {
            return List.of();
        }
        return admin.call("read " + dlq, ch -> {
            List<DeadLetterEntry> entries = new ArrayList<>();
            long lastTag = -1;
            try {
                while (entries.size() < limit) {
                    GetResponse response = ch.basicGet(dlq, false);
                    if (response == null) {
                        break;
                    }
                    lastTag = response.getEnvelope().getDeliveryTag();
                    entries.add(entry(queue, jobs.codec().decode(response.getBody()), entries.size()));
                }
            } finally {
                putBack(ch, lastTag);
            }
            return entries;
        });
    }

    @Override
    public List<DeadLetterEntry> page(String queue, String afterId, int limit) {
        if (afterId == null) {
            return list(queue, limit);
        }
        String dlq = names.deadLetterQueue(queue);
        if (limit <= 0 || !admin.queueExists(dlq)) {
            return List.of();
        }
        return admin.call("read " + dlq, ch -> {
            List<DeadLetterEntry> entries = new ArrayList<>();
            long lastTag = -1;
            boolean past = false;
            try {
                for (int position = 0; entries.size() < limit; position++) {
                    if (!past && position >= SCAN_LIMIT) {
                        throw new UnsupportedOperationException("dead letter " + afterId + " is not among the first "
                                + SCAN_LIMIT + " of " + dlq + ": a page cannot start there; redrive all instead");
                    }
                    GetResponse response = ch.basicGet(dlq, false);
                    if (response == null) {
                        break;
                    }
                    lastTag = response.getEnvelope().getDeliveryTag();
                    JobBody body = jobs.codec().decode(response.getBody());
                    if (past) {
                        entries.add(entry(queue, body, position));
                    } else {
                        past = afterId.equals(idOf(body, position));
                    }
                }
            } finally {
                putBack(ch, lastTag);
            }
            return entries;
        });
    }

    @Override
    public boolean supportsSingleEntries() {
        return true;
    }

    @Override
    public boolean redriveOne(String queue, String id) {
        return settleOne(queue, id, true);
    }

    @Override
    public boolean delete(String queue, String id) {
        return settleOne(queue, id, false);
    }

    /** Reads from the head until the entry {@code id}; re-publishes it (or not), acks it, puts the others back. */
    private boolean settleOne(String queue, String id, boolean redrive) {
        String dlq = names.deadLetterQueue(queue);
        if (!admin.queueExists(dlq)) {
            return false;
        }
        if (redrive) {
            jobs.declarations().ensureJobQueue(queue);
        }
        return admin.call((redrive ? "redrive " : "delete ") + id + " of " + dlq, ch -> {
            long lastTag = -1;
            try {
                for (int position = 0; position < SCAN_LIMIT; position++) {
                    GetResponse response = ch.basicGet(dlq, false);
                    if (response == null) {
                        return false;
                    }
                    long tag = response.getEnvelope().getDeliveryTag();
                    JobBody body = jobs.codec().decode(response.getBody());
                    if (!id.equals(idOf(body, position))) {
                        lastTag = tag;
                        continue;
                    }
                    if (redrive) {
                        String jobId = body.jobId() != null
                                ? body.jobId()
                                : body.originalId() != null
                                        ? body.originalId()
                                        : UUID.randomUUID().toString();
                        // Confirmed before the dead letter is acked: a failure leaves it dead-lettered, never lost.
                        ConfirmingPublisher.await(jobs.publisher()
                                .publish(
                                        "",
                                        names.workQueue(queue),
                                        true,
                                        RabbitMqJobs.properties(jobId, Map.of()),
                                        jobs.codec().redriven(body, jobId)));
                    }
                    ch.basicAck(tag, false);
                    return true;
                }
                throw new UnsupportedOperationException("dead letter " + id + " is not among the first " + SCAN_LIMIT
                        + " of " + dlq + ": redrive all instead");
            } finally {
                putBack(ch, lastTag);
            }
        });
    }

    private static String idOf(JobBody body, int position) {
        return body.jobId() != null
                ? body.jobId()
                : body.originalId() != null ? body.originalId() : "position-" + position;
    }

    private static void putBack(Channel ch, long lastTag) throws IOException {
        if (lastTag >= 0 && ch.isOpen()) {
            ch.basicNack(lastTag, true, true);
        }
    }

    private DeadLetterEntry entry(String queue, JobBody body, int position) {
        String id = idOf(body, position);
        Long deliveryCount = body.number("deliveryCount");
        return new DeadLetterEntry(
                id,
                queue,
                body.taskName().isEmpty() ? null : body.taskName(),
                body.payloadJson(),
                body.text(JobBodyCodec.ERROR),
                deliveryCount == null ? null : deliveryCount.intValue(),
                body.number(JobBodyCodec.DEAD_LETTERED_AT),
                body.originalId(),
                body.number("enqueuedAt"));
    }

    @Override
    public long count(String queue) {
        return admin.ready(names.deadLetterQueue(queue)).orElse(0);
    }

    @Override
    public long redrive(String queue, int limit) {
        String dlq = names.deadLetterQueue(queue);
        if (limit <= 0 || !admin.queueExists(dlq)) {
            return 0;
        }
        jobs.declarations().ensureJobQueue(queue);
        return admin.call("redrive " + dlq, ch -> {
            long moved = 0;
            while (moved < limit) {
                List<Long> tags = new ArrayList<>();
                List<java.util.concurrent.CompletableFuture<Void>> confirms = new ArrayList<>();
                while (tags.size() < BATCH && moved + tags.size() < limit) {
                    GetResponse response = ch.basicGet(dlq, false);
                    if (response == null) {
                        break;
                    }
                    JobBody deadLetter = jobs.codec().decode(response.getBody());
                    String jobId = deadLetter.jobId() != null
                            ? deadLetter.jobId()
                            : deadLetter.originalId() != null
                                    ? deadLetter.originalId()
                                    : UUID.randomUUID().toString();
                    tags.add(response.getEnvelope().getDeliveryTag());
                    confirms.add(jobs.publisher()
                            .publish(
                                    "",
                                    names.workQueue(queue),
                                    true,
                                    RabbitMqJobs.properties(jobId, Map.of()),
                                    jobs.codec().redriven(deadLetter, jobId)));
                }
                if (tags.isEmpty()) {
                    break;
                }
                RuntimeException failure = null;
                for (int i = 0; i < tags.size(); i++) {
                    try {
                        ConfirmingPublisher.await(confirms.get(i));
                        ch.basicAck(tags.get(i), false);
                        moved++;
                    } catch (RuntimeException e) {
                        ch.basicNack(tags.get(i), false, true);
                        failure = failure == null ? e : failure;
                    }
                }
                if (failure != null) {
                    throw new BackstageException(
                            "redrive of " + dlq + " stopped after " + moved + " job(s): " + failure.getMessage(),
                            failure);
                }
            }
            return moved;
        });
    }
}
