package dev.backstage.runtime.kafka;

import dev.backstage.runtime.spi.DeadLetterEntry;
import dev.backstage.runtime.spi.DeadLetterQueue;
import dev.backstage.runtime.spi.OutgoingJob;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
 * The dead-letter topic {@code {p}.{q}.dead-letter}: list it, count it, and move entries back onto the
 * work topic.
 *
 * <p>Kafka cannot delete one record, so a redrive records its progress as the committed offset of group
 * {@code {p}.redrive} on the dead-letter topic, committing each entry only after its copy on the work topic
 * is acknowledged: an interrupted redrive resumes after the last entry it moved and loses none (at worst
 * the one in progress is moved twice). Afterwards the moved records are deleted from the topic
 * ({@code deleteRecords} up to that offset), so other tools stop seeing them too. Listing and counting
 * start from the later of the log start and that offset.
 */
final class KafkaDeadLetters implements DeadLetterQueue {
    private static final Logger log = LoggerFactory.getLogger(KafkaDeadLetters.class);
    /** Upper bound on how long one list or redrive reads; both stop early once they reach the end. */
    static final Duration READ_LIMIT = Duration.ofSeconds(60);
    private static final Duration POLL = Duration.ofMillis(200);

    private final KafkaClients clients;
    private final KafkaJobs jobs;
    private final KafkaNames names;

    KafkaDeadLetters(KafkaClients clients, KafkaJobs jobs) {
        this.clients = clients;
        this.jobs = jobs;
        this.names = clients.settings().names();
    }

    /** Where one partition's readable entries begin and end. */
    private record Range(long from, long end) {}

    private Map<TopicPartition, Range> ranges(String topic) throws ExecutionException, TimeoutException,
            InterruptedException {
        KafkaOffsets offsets = new KafkaOffsets(clients.admin());
        List<TopicPartition> parts = offsets.partitions(List.of(topic)).get(topic);
        Map<TopicPartition, Range> out = new HashMap<>();
        if (parts == null) {
            return out;
        }
        Map<TopicPartition, Long> start = offsets.startOffsets(parts);
        Map<TopicPartition, Long> end = offsets.endOffsets(parts);
        Map<TopicPartition, OffsetAndMetadata> redriven = offsets.committed(names.redriveGroup());
        for (TopicPartition tp : parts) {
            long from = start.getOrDefault(tp, 0L);
            OffsetAndMetadata done = redriven.get(tp);
            if (done != null) {
                from = Math.max(from, done.offset());
            }
            out.put(tp, new Range(from, end.getOrDefault(tp, 0L)));
        }
        return out;
    }

    @Override
    public List<DeadLetterEntry> list(String queue, int limit) {
        String topic = names.deadLetterTopic(queue);
        if (limit <= 0) {
            return List.of();
        }
        try {
            Map<TopicPartition, Range> ranges = ranges(topic);
            List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            // A group-less consumer: reading commits nothing and moves no one's position.
            try (KafkaConsumer<byte[], byte[]> consumer = clients.newConsumer(null, "backstage-dead-letters-list-"
                    + UUID.randomUUID(), "earliest", Math.min(limit, 500))) {
                readRanges(consumer, ranges, records, limit);
            }
            records.sort(Comparator.<ConsumerRecord<byte[], byte[]>>comparingLong(ConsumerRecord::timestamp)
                    .thenComparingInt(ConsumerRecord::partition).thenComparingLong(ConsumerRecord::offset));
            List<DeadLetterEntry> entries = new ArrayList<>();
            for (ConsumerRecord<byte[], byte[]> r : records.subList(0, Math.min(limit, records.size()))) {
                entries.add(entry(queue, r));
            }
            return entries;
        } catch (ExecutionException | TimeoutException e) {
            throw new KafkaBrokerException("could not read dead-letter topic " + topic, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaBrokerException("interrupted while reading dead-letter topic " + topic, e);
        }
    }

    /** Reads each partition from its range start to its end (as of now), up to {@code limit} per partition. */
    private static void readRanges(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Range> ranges,
            List<ConsumerRecord<byte[], byte[]>> into, int limit) {
        Map<TopicPartition, Range> open = new HashMap<>();
        ranges.forEach((tp, r) -> {
            if (r.from() < r.end()) {
                open.put(tp, r);
            }
        });
        if (open.isEmpty()) {
            return;
        }
        consumer.assign(open.keySet());
        open.forEach((tp, r) -> consumer.seek(tp, r.from()));
        Map<TopicPartition, Integer> taken = new HashMap<>();
        long deadline = System.nanoTime() + READ_LIMIT.toNanos();
        while (!open.isEmpty() && System.nanoTime() < deadline) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                Range range = open.get(tp);
                if (range == null || r.offset() >= range.end()) {
                    continue;
                }
                into.add(r);
                taken.merge(tp, 1, Integer::sum);
            }
            for (TopicPartition tp : List.copyOf(open.keySet())) {
                if (consumer.position(tp) >= open.get(tp).end() || taken.getOrDefault(tp, 0) >= limit) {
                    open.remove(tp);
                    consumer.pause(List.of(tp));
                }
            }
        }
    }

    private DeadLetterEntry entry(String queue, ConsumerRecord<byte[], byte[]> r) {
        DeadLetterValue v = jobs.deadLetterValues().decodeDeadLetter(r.value());
        String id = r.topic() + ":" + r.partition() + ":" + r.offset();
        JobValue job = v.job();
        return new DeadLetterEntry(id, queue, job == null ? null : job.taskName(),
                job == null ? v.rawValue() : job.payloadJson(), v.error(), v.deliveryCount(), v.deadLetteredAtMs(),
                v.originalId(), job == null ? null : job.enqueuedAtMs());
    }

    @Override
    public long count(String queue) {
        String topic = names.deadLetterTopic(queue);
        try {
            return ranges(topic).values().stream().mapToLong(r -> Math.max(0, r.end() - r.from())).sum();
        } catch (ExecutionException | TimeoutException e) {
            throw new KafkaBrokerException("could not count dead-letter topic " + topic, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaBrokerException("interrupted while counting dead-letter topic " + topic, e);
        }
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
            Map<TopicPartition, Range> ranges = ranges(topic);
            if (ranges.values().stream().allMatch(r -> r.from() >= r.end())) {
                return 0;
            }
            clients.ensureJobTopic(workTopic);
            long moved = 0;
            try (KafkaConsumer<byte[], byte[]> consumer = clients.newConsumer(names.redriveGroup(),
                    "backstage-dead-letters-redrive-" + UUID.randomUUID(), "earliest", Math.min(limit, 500))) {
                List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>();
                readRanges(consumer, ranges, batch, limit);
                batch.sort(Comparator.<ConsumerRecord<byte[], byte[]>>comparingInt(ConsumerRecord::partition)
                        .thenComparingLong(ConsumerRecord::offset));
                for (ConsumerRecord<byte[], byte[]> r : batch) {
                    if (moved >= limit) {
                        break;
                    }
                    jobs.send(workTopic, jobValueFor(queue, r)).get(KafkaClients.ADMIN_TIMEOUT.toMillis(),
                            TimeUnit.MILLISECONDS);
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    consumer.commitSync(Map.of(tp, new OffsetAndMetadata(r.offset() + 1)), OffsetCommitter.COMMIT_TIMEOUT);
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
        String jobId = job.jobId() != null ? job.jobId()
                : v.originalId() != null ? v.originalId() : r.topic() + ":" + r.partition() + ":" + r.offset();
        OutgoingJob fresh = new OutgoingJob(queue, job.taskName(), job.payloadJson(),
                job.enqueuedAtMs() == null ? r.timestamp() : job.enqueuedAtMs(), job.meta(), 1, jobId);
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
                clients.admin().deleteRecords(delete).all()
                        .get(KafkaClients.ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (ExecutionException | TimeoutException e) {
            log.warn("could not delete redriven records from {} (they stay hidden behind the redrive offset): {}",
                    topic, KafkaBrokerException.describe(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
