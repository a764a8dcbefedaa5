package dev.backstage.runtime.kafka;

import dev.backstage.runtime.spi.BacklogProbe;
import dev.backstage.runtime.spi.BacklogReport;
import dev.backstage.runtime.spi.BacklogUnavailableException;
import dev.backstage.runtime.spi.QueueBacklog;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Consumer lag per queue, as Kafka's own {@code kafka-consumer-groups --describe} computes it:
 * per partition {@code lag = log end offset − committed offset}, summed over the topic's partitions.
 *
 * <ul>
 *   <li>A partition the group never committed counts from the log start offset (what a new group
 *       reading from the earliest offset has left), not from 0: records removed by retention are not work.
 *       Its {@code committedOffset} is reported as -1.
 *   <li>{@code inFlight} is 0: Kafka cannot tell fetched-but-unsettled records apart from waiting ones.
 *       They are inside the lag already, because the group commits only past settled records.
 *   <li>{@code deadLetters} is the record count of {@code {p}.{q}.dead-letter} (end − start offsets),
 *       less what a redrive already moved back (the {@code {p}.redrive} group's position).
 *   <li>{@code oldestAgeMs} is null: knowing it would mean reading the record at each committed offset.
 * </ul>
 */
final class KafkaBacklogProbe implements BacklogProbe {
    static final String NOTE = "lag = log end offset - committed offset per partition; partitions without a commit"
            + " count from the log start offset; inFlight not measurable on Kafka (0): records being handled are"
            + " inside the lag, since commits only pass settled records";

    private final KafkaClients clients;
    private final KafkaNames names;

    KafkaBacklogProbe(KafkaClients clients) {
        this.clients = clients;
        this.names = clients.settings().names();
    }

    @Override
    public BacklogReport measure(List<String> queues, String consumerGroup) {
        try {
            KafkaOffsets offsets = new KafkaOffsets(clients.admin());
            List<String> topics = new ArrayList<>();
            for (String queue : queues) {
                topics.add(names.jobTopic(queue));
                topics.add(names.deadLetterTopic(queue));
            }
            Map<String, List<TopicPartition>> partitions = offsets.partitions(topics);
            List<TopicPartition> all =
                    partitions.values().stream().flatMap(List::stream).toList();
            Map<TopicPartition, Long> end = offsets.endOffsets(all);
            Map<TopicPartition, Long> start = offsets.startOffsets(all);
            Map<TopicPartition, OffsetAndMetadata> committed = offsets.committed(consumerGroup);
            Map<TopicPartition, OffsetAndMetadata> redriven = offsets.committed(names.redriveGroup());
            List<QueueBacklog> result = new ArrayList<>();
            for (String queue : queues) {
                result.add(queueBacklog(queue, partitions, end, start, committed, redriven));
            }
            return new BacklogReport(Instant.now(), result);
        } catch (ExecutionException | TimeoutException e) {
            throw new BacklogUnavailableException(
                    "BrokerUnreachable", "could not read Kafka offsets: " + KafkaBrokerException.describe(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BacklogUnavailableException("Interrupted", "interrupted while reading Kafka offsets", e);
        } catch (RuntimeException e) {
            throw new BacklogUnavailableException(
                    "BrokerError", "could not read Kafka offsets: " + KafkaBrokerException.describe(e), e);
        }
    }

    private QueueBacklog queueBacklog(
            String queue,
            Map<String, List<TopicPartition>> partitions,
            Map<TopicPartition, Long> end,
            Map<TopicPartition, Long> start,
            Map<TopicPartition, OffsetAndMetadata> committed,
            Map<TopicPartition, OffsetAndMetadata> redriven) {
        String topic = names.jobTopic(queue);
        List<TopicPartition> parts = partitions.get(topic);
        long deadLetters = deadLetters(partitions.get(names.deadLetterTopic(queue)), end, start, redriven);
        if (parts == null) {
            return new QueueBacklog(
                    queue, 0, 0, deadLetters, null, List.of(), "topic " + topic + " does not exist yet");
        }
        List<QueueBacklog.PartitionBacklog> perPartition = new ArrayList<>();
        long total = 0;
        for (TopicPartition tp : parts.stream()
                .sorted(Comparator.comparingInt(TopicPartition::partition))
                .toList()) {
            long endOffset = end.getOrDefault(tp, 0L);
            OffsetAndMetadata om = committed.get(tp);
            long lag = om != null ? endOffset - om.offset() : endOffset - start.getOrDefault(tp, 0L);
            lag = Math.max(0, lag);
            perPartition.add(
                    new QueueBacklog.PartitionBacklog(tp.partition(), endOffset, om == null ? -1 : om.offset(), lag));
            total += lag;
        }
        return new QueueBacklog(queue, total, 0, deadLetters, null, perPartition, NOTE);
    }

    /** Records in the dead-letter topic not yet moved back by a redrive. */
    static long deadLetters(
            List<TopicPartition> parts,
            Map<TopicPartition, Long> end,
            Map<TopicPartition, Long> start,
            Map<TopicPartition, OffsetAndMetadata> redriven) {
        if (parts == null) {
            return 0;
        }
        // Entries redriven or deleted one by one beyond the redrive offset are not counted (DeadLetterProgress).
        DeadLetterProgress progress = new DeadLetterProgress();
        for (TopicPartition tp : parts) {
            progress.add(tp, start.getOrDefault(tp, 0L), end.getOrDefault(tp, 0L), redriven.get(tp));
        }
        return progress.unsettled();
    }
}
