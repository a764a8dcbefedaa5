package dev.backstage.runtime.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.backstage.testsupport.KafkaCluster;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;

/**
 * One topic of a {@link KafkaCluster} as the cluster's own metadata reports it, read with the Admin client:
 * leaders, replicas, in-sync replicas, end offsets and a group's committed offsets.
 */
final class TopicOnCluster implements AutoCloseable {
    private final Admin admin;
    private final String topic;

    TopicOnCluster(KafkaCluster cluster, String topic) {
        this.admin = cluster.admin();
        this.topic = topic;
    }

    /** Every partition: its leader, replicas and ISR as the cluster reports them now. */
    List<TopicPartitionInfo> partitions() throws Exception {
        return admin.describeTopics(List.of(topic))
                .allTopicNames()
                .get(30, TimeUnit.SECONDS)
                .get(topic)
                .partitions();
    }

    /** The partitions {@code node} leads now. */
    Set<Integer> ledBy(int node) throws Exception {
        Set<Integer> led = new TreeSet<>();
        for (TopicPartitionInfo p : partitions()) {
            if (p.leader() != null && p.leader().id() == node) {
                led.add(p.partition());
            }
        }
        return led;
    }

    /** The partitions whose preferred replica (the first of the replica list) is {@code node}. */
    Set<Integer> preferring(int node) throws Exception {
        Set<Integer> preferred = new TreeSet<>();
        for (TopicPartitionInfo p : partitions()) {
            if (!p.replicas().isEmpty() && p.replicas().get(0).id() == node) {
                preferred.add(p.partition());
            }
        }
        return preferred;
    }

    /** Whether {@code node} is in the ISR of every partition. */
    boolean inEveryIsr(int node) throws Exception {
        return partitions().stream().allMatch(p -> p.isr().stream().anyMatch(n -> n.id() == node));
    }

    /**
     * Asks the controller to give every partition back to its preferred replica. A partition already led by it
     * answers "election not needed", which is not a failure here; the caller polls {@link #ledBy} for the result.
     */
    void electPreferredLeaders() throws Exception {
        Set<TopicPartition> all = new HashSet<>();
        for (TopicPartitionInfo p : partitions()) {
            all.add(new TopicPartition(topic, p.partition()));
        }
        admin.electLeaders(ElectionType.PREFERRED, all).partitions().get(30, TimeUnit.SECONDS);
    }

    /** Each partition's end offset (the offset the next record gets). */
    Map<TopicPartition, Long> endOffsets() throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (TopicPartitionInfo p : partitions()) {
            latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest());
        }
        Map<TopicPartition, Long> out = new HashMap<>();
        admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).forEach((tp, info) -> out.put(tp, info.offset()));
        return out;
    }

    /** Whether {@code group} has committed exactly {@code end} on every partition. */
    boolean committedTo(String group, Map<TopicPartition, Long> end) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS);
        return end.entrySet().stream()
                .allMatch(e -> committed.get(e.getKey()) != null
                        && committed.get(e.getKey()).offset() == e.getValue());
    }

    /** The topic has {@code replicas} replicas per partition and {@code min.insync.replicas} set on the topic itself. */
    void assertReplicated(int replicas, int minInsync) throws Exception {
        for (TopicPartitionInfo p : partitions()) {
            assertEquals(replicas, p.replicas().size(), "replicas of partition " + p.partition());
        }
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        ConfigEntry minIsr = admin.describeConfigs(List.of(resource))
                .all()
                .get(30, TimeUnit.SECONDS)
                .get(resource)
                .get("min.insync.replicas");
        assertEquals(String.valueOf(minInsync), minIsr.value());
        assertEquals(
                ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG,
                minIsr.source(),
                "min.insync.replicas is the topic's own setting, not the broker default");
    }

    @Override
    public void close() {
        admin.close();
    }
}
