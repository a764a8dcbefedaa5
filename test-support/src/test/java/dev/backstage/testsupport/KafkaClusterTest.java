package dev.backstage.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class KafkaClusterTest {

    @Test
    void givenThreeNodesWhenTheLeaderIsKilledTheOthersTakeOverAndTheRestartedNodeRejoinsTheIsr() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.start(3); Admin admin = cluster.admin()) {
            String topic = UniqueNames.prefix("cluster-smoke");
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 3)
                    .configs(Map.of("min.insync.replicas", "2")))).all().get(30, TimeUnit.SECONDS);
            int leader = cluster.leaderOfMostPartitions(topic);
            try (var producer = new KafkaProducer<String, String>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all"),
                    new StringSerializer(), new StringSerializer())) {
                producer.send(new ProducerRecord<>(topic, "before")).get(30, TimeUnit.SECONDS);
                cluster.kill(leader);
                producer.send(new ProducerRecord<>(topic, "after")).get(60, TimeUnit.SECONDS);
            }
            TopicPartitionInfo during = partition(admin, topic);
            assertNotEquals(leader, during.leader().id(), "a surviving node leads the partition");
            cluster.restart(leader);
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            while (partition(admin, topic).isr().size() < 3 && System.nanoTime() < deadline) {
                Thread.sleep(200); // polling interval
            }
            assertEquals(3, partition(admin, topic).isr().size(), "the restarted node is back in sync");
        }
    }

    private static TopicPartitionInfo partition(Admin admin, String topic) throws Exception {
        TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
        return d.partitions().get(0);
    }
}
