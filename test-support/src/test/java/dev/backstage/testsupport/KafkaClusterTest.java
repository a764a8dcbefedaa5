package dev.backstage.testsupport;

import static org.awaitility.Awaitility.await;
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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A 3-node {@link KafkaCluster}: a killed leader's partition moves to a survivor, and the node rejoins the ISR. */
@Tag("broker")
@Tag("slow")
class KafkaClusterTest {

    @Test
    void givenThreeNodes_whenTheLeaderIsKilled_thenTheOthersTakeOver_andTheRestartedNodeRejoinsTheIsr()
            throws Exception {
        try (KafkaCluster cluster = KafkaCluster.start(3);
                Admin admin = cluster.admin()) {
            String topic = UniqueNames.prefix("cluster-smoke");
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 3).configs(Map.of("min.insync.replicas", "2"))))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            int leader = cluster.leaderOfMostPartitions(topic);
            try (var producer = new KafkaProducer<String, String>(
                    Map.of(
                            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                            cluster.bootstrapServers(),
                            ProducerConfig.ACKS_CONFIG,
                            "all"),
                    new StringSerializer(),
                    new StringSerializer())) {
                producer.send(new ProducerRecord<>(topic, "before")).get(30, TimeUnit.SECONDS);
                cluster.kill(leader);
                producer.send(new ProducerRecord<>(topic, "after")).get(60, TimeUnit.SECONDS);
            }
            TopicPartitionInfo during = partition(admin, topic);
            assertNotEquals(leader, during.leader().id(), "a surviving node leads the partition");
            cluster.restart(leader);
            await("the restarted node back in sync")
                    .atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(200))
                    .untilAsserted(
                            () -> assertEquals(3, partition(admin, topic).isr().size(), "ISR of " + topic));
        }
    }

    private static TopicPartitionInfo partition(Admin admin, String topic) throws Exception {
        TopicDescription d = admin.describeTopics(List.of(topic))
                .allTopicNames()
                .get(30, TimeUnit.SECONDS)
                .get(topic);
        return d.partitions().get(0);
    }
}
