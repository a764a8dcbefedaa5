package dev.backstage.runtime.kafka;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Broker-side figures read with the admin client: which partitions a topic has, its log start and end
 * offsets, and a group's committed offsets. Shared by the backlog probe, the dead-letter tools and the
 * declarer, so all of them count the same way.
 */
final class KafkaOffsets {
    private final Admin admin;

    KafkaOffsets(Admin admin) {
        this.admin = admin;
    }

    /** Partitions per topic; topics that do not exist are absent from the result. */
    Map<String, List<TopicPartition>> partitions(Collection<String> topics)
            throws ExecutionException, TimeoutException, InterruptedException {
        Map<String, List<TopicPartition>> out = new HashMap<>();
        if (topics.isEmpty()) {
            return out;
        }
        Map<String, KafkaFuture<TopicDescription>> futures =
                admin.describeTopics(topics).topicNameValues();
        for (var e : futures.entrySet()) {
            try {
                TopicDescription d = e.getValue().get(KafkaClients.ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                List<TopicPartition> parts = new ArrayList<>();
                d.partitions().forEach(p -> parts.add(new TopicPartition(e.getKey(), p.partition())));
                out.put(e.getKey(), parts);
            } catch (ExecutionException ex) {
                if (!(ex.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw ex;
                }
                // Not there: callers report it as missing.
            }
        }
        return out;
    }

    Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions)
            throws ExecutionException, TimeoutException, InterruptedException {
        return offsets(partitions, OffsetSpec.latest());
    }

    Map<TopicPartition, Long> startOffsets(Collection<TopicPartition> partitions)
            throws ExecutionException, TimeoutException, InterruptedException {
        return offsets(partitions, OffsetSpec.earliest());
    }

    private Map<TopicPartition, Long> offsets(Collection<TopicPartition> partitions, OffsetSpec spec)
            throws ExecutionException, TimeoutException, InterruptedException {
        Map<TopicPartition, Long> out = new HashMap<>();
        if (partitions.isEmpty()) {
            return out;
        }
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        partitions.forEach(tp -> request.put(tp, spec));
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> result =
                admin.listOffsets(request).all().get(KafkaClients.ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        result.forEach((tp, info) -> out.put(tp, info.offset()));
        return out;
    }

    /** The group's committed offsets; partitions it never committed are absent. */
    Map<TopicPartition, OffsetAndMetadata> committed(String group)
            throws ExecutionException, TimeoutException, InterruptedException {
        Map<TopicPartition, OffsetAndMetadata> raw = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(KafkaClients.ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        raw.forEach((tp, om) -> {
            if (om != null) {
                out.put(tp, om);
            }
        });
        return out;
    }
}
