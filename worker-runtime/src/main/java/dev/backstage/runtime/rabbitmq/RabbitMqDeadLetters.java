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
 * </ul>
 */
final class RabbitMqDeadLetters implements DeadLetterQueue {
    static final int BATCH = 100;
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

    private static void putBack(Channel ch, long lastTag) throws IOException {
        if (lastTag >= 0 && ch.isOpen()) {
            ch.basicNack(lastTag, true, true);
        }
    }

    private DeadLetterEntry entry(String queue, JobBody body, int position) {
        String id = body.jobId() != null ? body.jobId() : body.originalId() != null ? body.originalId()
                : "position-" + position;
        Long deliveryCount = body.number("deliveryCount");
        return new DeadLetterEntry(id, queue, body.taskName().isEmpty() ? null : body.taskName(), body.payloadJson(),
                body.text(JobBodyCodec.ERROR), deliveryCount == null ? null : deliveryCount.intValue(),
                body.number(JobBodyCodec.DEAD_LETTERED_AT), body.originalId(), body.number("enqueuedAt"));
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
                    String jobId = deadLetter.jobId() != null ? deadLetter.jobId()
                            : deadLetter.originalId() != null ? deadLetter.originalId() : UUID.randomUUID().toString();
                    tags.add(response.getEnvelope().getDeliveryTag());
                    confirms.add(jobs.publisher().publish("", names.workQueue(queue), true,
                            RabbitMqJobs.properties(jobId, Map.of()), jobs.codec().redriven(deadLetter, jobId)));
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
                    throw new BackstageException("redrive of " + dlq + " stopped after " + moved + " job(s): "
                            + failure.getMessage(), failure);
                }
            }
            return moved;
        });
    }
}
