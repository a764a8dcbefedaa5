package dev.backstage.runtime.kafka;

import dev.backstage.runtime.spi.DeadLetterEntry;
import dev.backstage.runtime.spi.DeadLetterQueue;
import dev.backstage.runtime.spi.OutgoingJob;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dead-letter topic {@code {p}.{q}.dead-letter}: list it, page it, count it, move entries back onto the
 * work topic, and redrive or delete one entry.
 *
 * <p>Kafka cannot delete one record, so a redrive records its progress as the committed offset of group
 * {@code {p}.redrive} on the dead-letter topic, committing each entry only after its copy on the work topic
 * is acknowledged: an interrupted redrive resumes after the last entry it moved and loses none (at worst
 * the one in progress is moved twice). Afterwards the moved records are deleted from the topic
 * ({@code deleteRecords} up to that offset), so other tools stop seeing them too. Listing and counting
 * start from the later of the log start and that offset.
 *
 * <p>A single entry (id {@code topic:partition:offset}) redriven or deleted out of order stays in the log: it is
 * recorded as settled in that commit's metadata ({@link DeadLetterProgress}) and skipped from then on by every
 * read, count and redrive here and in the backlog probe; once every older entry of its partition is settled the
 * offset moves past it and it is deleted with the rest. Redrive one re-publishes the record, then records it.
 * Pages go partition by partition in offset order; a page after an entry reads from that entry's offset on, so a
 * page costs its own records, not the ones before it.
 *
 * <p>Kept as one class: listing, counting, redrive and single-entry deletion all read and write the same progress
 * record (the redrive group's committed offset and its metadata), and must do it the same way.
 */
final class KafkaDeadLetters implements DeadLetterQueue {
    private static final Logger log = LoggerFactory.getLogger(KafkaDeadLetters.class);

    private final KafkaClients clients;
    private final KafkaJobs jobs;
    private final KafkaNames names;

    KafkaDeadLetters(KafkaClients clients, KafkaJobs jobs) {
        this.clients = clients;
        this.jobs = jobs;
        this.names = clients.settings().names();
    }

    private DeadLetterProgress progress(String topic)
            throws ExecutionException, TimeoutException, InterruptedException {
        return DeadLetterProgress.read(new KafkaOffsets(clients.admin()), names.redriveGroup(), topic);
    }

    /** A group-less consumer: reading commits nothing and moves no one's position. */
    private KafkaConsumer<byte[], byte[]> reader(int maxPoll) {
        return clients.newConsumer(
                null,
                "backstage-dead-letters-list-" + UUID.randomUUID(),
                "earliest",
                Math.max(1, Math.min(maxPoll, 500)));
    }

    @Override
    public List<DeadLetterEntry> list(String queue, int limit) {
        String topic = names.deadLetterTopic(queue);
        if (limit <= 0) {
            return List.of();
        }
        return reading(topic, () -> {
            List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            try (KafkaConsumer<byte[], byte[]> consumer = reader(limit)) {
                DeadLetterReads.allPartitions(consumer, progress(topic), records, limit);
            }
            records.sort(Comparator.<ConsumerRecord<byte[], byte[]>>comparingLong(ConsumerRecord::timestamp)
                    .thenComparingInt(ConsumerRecord::partition)
                    .thenComparingLong(ConsumerRecord::offset));
            return entries(queue, records.subList(0, Math.min(limit, records.size())));
        });
    }

    /** Partition by partition, oldest offset first; {@code afterId} is an entry id of this topic. */
    @Override
    public List<DeadLetterEntry> page(String queue, String afterId, int limit) {
        String topic = names.deadLetterTopic(queue);
        if (limit <= 0) {
            return List.of();
        }
        EntryId after = afterId == null ? null : EntryId.parse(topic, afterId);
        return reading(topic, () -> {
            DeadLetterProgress progress = progress(topic);
            List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            try (KafkaConsumer<byte[], byte[]> consumer = reader(limit)) {
                for (DeadLetterProgress.Part part : progress.partitions()) {
                    if (after != null && part.tp.partition() < after.tp().partition()) {
                        continue;
                    }
                    long from = after != null && part.tp.equals(after.tp()) ? after.offset() + 1 : part.from;
                    DeadLetterReads.onePartition(consumer, progress, part, from, records, limit);
                }
            }
            return entries(queue, records);
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

    /** Reads the record {@code id}; re-publishes it (or not), then records it as settled for the redrive group. */
    private boolean settleOne(String queue, String id, boolean redrive) {
        String topic = names.deadLetterTopic(queue);
        EntryId entry = EntryId.parse(topic, id);
        return reading(topic, () -> {
            DeadLetterProgress progress = progress(topic);
            DeadLetterProgress.Part part = progress.part(entry.tp());
            if (part == null || entry.offset() >= part.end || progress.isSettled(entry.tp(), entry.offset())) {
                return false;
            }
            List<ConsumerRecord<byte[], byte[]>> found = new ArrayList<>();
            try (KafkaConsumer<byte[], byte[]> consumer = reader(1)) {
                DeadLetterReads.onePartition(consumer, progress, part, entry.offset(), found, 1);
            }
            if (found.isEmpty() || found.get(0).offset() != entry.offset()) {
                return false;
            }
            OffsetAndMetadata commit = progress.settle(entry.tp(), entry.offset());
            if (redrive) {
                String workTopic = names.jobTopic(queue);
                clients.ensureJobTopic(workTopic);
                jobs.send(workTopic, jobValueFor(queue, found.get(0)))
                        .get(KafkaClients.ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }
            clients.admin()
                    .alterConsumerGroupOffsets(names.redriveGroup(), Map.of(entry.tp(), commit))
                    .all()
                    .get(KafkaClients.ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            deleteRedriven(topic);
            log.info("{} dead-letter entry {}", redrive ? "redrove" : "deleted", id);
            return true;
        });
    }

    /** A dead-letter entry's id, {@code topic:partition:offset}. */
    private record EntryId(TopicPartition tp, long offset) {
        static EntryId parse(String topic, String id) {
            int last = id.lastIndexOf(':');
            int middle = last < 0 ? -1 : id.lastIndexOf(':', last - 1);
            if (middle > 0 && id.substring(0, middle).equals(topic)) {
                try {
                    return new EntryId(
                            new TopicPartition(topic, Integer.parseInt(id.substring(middle + 1, last))),
                            Long.parseLong(id.substring(last + 1)));
                } catch (NumberFormatException e) {
                    // falls through to the message below
                }
            }
            throw new IllegalArgumentException("dead letter id '" + id + "' is not " + topic
                    + ":<partition>:<offset>; use an id the dead-letter list shows");
        }
    }

    private interface BrokerRead<T> {
        T run() throws ExecutionException, TimeoutException, InterruptedException;
    }

    private static <T> T reading(String topic, BrokerRead<T> read) {
        try {
            return read.run();
        } catch (ExecutionException | TimeoutException e) {
            throw new KafkaBrokerException("could not read dead-letter topic " + topic, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaBrokerException("interrupted while reading dead-letter topic " + topic, e);
        }
    }

    private List<DeadLetterEntry> entries(String queue, List<ConsumerRecord<byte[], byte[]>> records) {
        List<DeadLetterEntry> entries = new ArrayList<>(records.size());
        for (ConsumerRecord<byte[], byte[]> r : records) {
            entries.add(entry(queue, r));
        }
        return entries;
    }

    private DeadLetterEntry entry(String queue, ConsumerRecord<byte[], byte[]> r) {
        DeadLetterValue v = jobs.deadLetterValues().decodeDeadLetter(r.value());
        String id = r.topic() + ":" + r.partition() + ":" + r.offset();
        JobValue job = v.job();
        return new DeadLetterEntry(
                id,
                queue,
                job == null ? null : job.taskName(),
                job == null ? v.rawValue() : job.payloadJson(),
                v.error(),
                v.deliveryCount(),
                v.deadLetteredAtMs(),
                v.originalId(),
                job == null ? null : job.enqueuedAtMs());
    }

    @Override
    public long count(String queue) {
        String topic = names.deadLetterTopic(queue);
        return reading(topic, () -> progress(topic).unsettled());
    }

    /**
     * Moves up to {@code limit} entries, oldest offsets first per partition, back onto {@code {p}.{q}} as
     * fresh jobs (delivery count 1, same job id). See the class comment for why nothing is lost.
     */
    @Override
    public long redrive(String queue, int limit) {
        String topic = names.deadLetterTopic(queue);
        String workTopic = names.jobTopic(queue);
        if (limit <= 0) {
            return 0;
        }
        try {
            DeadLetterProgress progress = progress(topic);
            if (progress.unsettled() == 0) {
                return 0;
            }
            clients.ensureJobTopic(workTopic);
            long moved = 0;
            try (KafkaConsumer<byte[], byte[]> consumer = clients.newConsumer(
                    names.redriveGroup(),
                    "backstage-dead-letters-redrive-" + UUID.randomUUID(),
                    "earliest",
                    Math.min(limit, 500))) {
                List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>();
                DeadLetterReads.allPartitions(consumer, progress, batch, limit);
                batch.sort(Comparator.<ConsumerRecord<byte[], byte[]>>comparingInt(ConsumerRecord::partition)
                        .thenComparingLong(ConsumerRecord::offset));
                for (ConsumerRecord<byte[], byte[]> r : batch) {
                    if (moved >= limit) {
                        break;
                    }
                    jobs.send(workTopic, jobValueFor(queue, r))
                            .get(KafkaClients.ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    // Past this record and any entries settled one by one right after it; later markers kept.
                    consumer.commitSync(Map.of(tp, progress.settle(tp, r.offset())), OffsetCommitter.COMMIT_TIMEOUT);
                    moved++;
                }
            }
            deleteRedriven(topic);
            log.info("redrove {} dead-letter entries from {} to {}", moved, topic, workTopic);
            return moved;
        } catch (ExecutionException | TimeoutException e) {
            throw new KafkaBrokerException("redrive of " + topic + " stopped", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaBrokerException("interrupted while redriving " + topic, e);
        }
    }

    /** A fresh job value for a dead-letter record; a record that never was a readable job goes back as it was. */
    private byte[] jobValueFor(String queue, ConsumerRecord<byte[], byte[]> r) {
        DeadLetterValue v = jobs.deadLetterValues().decodeDeadLetter(r.value());
        JobValue job = v.job();
        if (job == null) {
            return v.rawValue() == null ? new byte[0] : v.rawValue().getBytes(StandardCharsets.UTF_8);
        }
        // docs/wire-format.md: a value without jobId is known by its first delivery's id (originalId).
        String jobId = job.jobId() != null
                ? job.jobId()
                : v.originalId() != null ? v.originalId() : r.topic() + ":" + r.partition() + ":" + r.offset();
        OutgoingJob fresh = new OutgoingJob(
                queue,
                job.taskName(),
                job.payloadJson(),
                job.enqueuedAtMs() == null ? r.timestamp() : job.enqueuedAtMs(),
                job.meta(),
                1,
                jobId);
        return jobs.encoder().encode(fresh, jobId);
    }

    /** Deletes records a redrive has moved; if this fails they are still skipped by the redrive offset. */
    private void deleteRedriven(String topic) {
        try {
            KafkaOffsets offsets = new KafkaOffsets(clients.admin());
            Map<TopicPartition, OffsetAndMetadata> done = offsets.committed(names.redriveGroup());
            Map<TopicPartition, RecordsToDelete> delete = new HashMap<>();
            done.forEach((tp, om) -> {
                if (tp.topic().equals(topic)) {
                    delete.put(tp, RecordsToDelete.beforeOffset(om.offset()));
                }
            });
            if (!delete.isEmpty()) {
                clients.admin()
                        .deleteRecords(delete)
                        .all()
                        .get(KafkaClients.ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (ExecutionException | TimeoutException e) {
            log.warn(
                    "could not delete redriven records from {} (they stay hidden behind the redrive offset): {}",
                    topic,
                    KafkaBrokerException.describe(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
