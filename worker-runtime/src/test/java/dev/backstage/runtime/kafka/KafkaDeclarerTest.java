package dev.backstage.runtime.kafka;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.spi.DeclaredObject;
import dev.backstage.runtime.spi.DeclaredObject.State;
import dev.backstage.runtime.spi.TopologyRequest;
import dev.backstage.runtime.spi.TopologyRequest.QueueSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("broker")
class KafkaDeclarerTest {
    private final KafkaTestSupport kafka = new KafkaTestSupport();
    private final KafkaProvider provider = kafka.provider();

    @AfterEach
    void tearDown() {
        provider.close();
        kafka.close();
    }

    private Map<String, State> states(List<DeclaredObject> objects) {
        return objects.stream().collect(Collectors.toMap(DeclaredObject::name, DeclaredObject::state));
    }

    /** Waits until the broker's metadata shows {@code topic} with {@code expected} partitions (it lags creation). */
    private void awaitPartitions(String topic, int expected) {
        await().atMost(Duration.ofSeconds(60))
                .ignoreExceptions()
                .until(
                        () -> kafka.admin()
                                .describeTopics(List.of(topic))
                                .allTopicNames()
                                .get(30, TimeUnit.SECONDS)
                                .get(topic)
                                .partitions()
                                .size(),
                        n -> n == expected);
    }

    @Test
    void givenATopology_whenDeclaredTwice_thenTopicsAreCreatedWithTheirPartitionsAndThenReportedAsExisting()
            throws Exception {
        TopologyRequest request = new TopologyRequest(
                List.of(new QueueSpec("orders", 3, (short) 1), QueueSpec.named("emails")),
                List.of("ride.cancelled"),
                true,
                kafka.group);
        String orders = kafka.topic("orders");
        Map<String, State> first = states(provider.declarer().declare(request));
        assertEquals(
                Map.of(
                        orders,
                        State.CREATED,
                        orders + ".dead-letter",
                        State.CREATED,
                        kafka.topic("emails"),
                        State.CREATED,
                        kafka.topic("emails.dead-letter"),
                        State.CREATED,
                        kafka.prefix + ".topic.ride.cancelled",
                        State.CREATED),
                first);
        awaitPartitions(orders, 3);
        awaitPartitions(orders + ".dead-letter", 1);
        awaitPartitions(kafka.topic("emails"), 1);

        assertTrue(
                states(provider.declarer().declare(request)).values().stream().allMatch(s -> s == State.EXISTED));
        assertTrue(
                states(provider.declarer().inspect(request)).values().stream().allMatch(s -> s == State.EXISTED));
    }

    @Test
    void givenAnExistingTopicWithFewerPartitions_whenDeclared_thenItIsGrownAndTheDetailSaysSo() throws Exception {
        String orders = kafka.topic("orders");
        kafka.createTopic(orders, 1);
        awaitPartitions(orders, 1);
        List<DeclaredObject> out = provider.declarer()
                .declare(new TopologyRequest(
                        List.of(new QueueSpec("orders", 4, (short) 1)), List.of(), false, kafka.group));
        assertEquals(1, out.size());
        assertEquals(State.EXISTED, out.get(0).state());
        assertEquals("partitions increased from 1 to 4", out.get(0).detail());
        awaitPartitions(orders, 4);
    }

    @Test
    void givenAReplicationFactorTheClusterCannotMeet_whenDeclared_thenThatTopicFailsWithTheBrokersReason() {
        List<DeclaredObject> out = provider.declarer()
                .declare(new TopologyRequest(
                        List.of(new QueueSpec("orders", 1, (short) 3)), List.of(), false, kafka.group));
        assertEquals(State.FAILED, out.get(0).state());
        assertTrue(
                out.get(0).detail().contains("InvalidReplicationFactor"),
                out.get(0).detail());
    }

    @Test
    void givenDeclaredTopics_whenDeleted_thenInspectReportsThemMissing() {
        TopologyRequest request = new TopologyRequest(List.of(QueueSpec.named("orders")), List.of(), true, kafka.group);
        provider.declarer().declare(request);
        awaitPartitions(kafka.topic("orders"), 1);
        awaitPartitions(kafka.topic("orders.dead-letter"), 1);
        Map<String, State> deleted = states(provider.declarer().delete(request));
        assertEquals(
                Map.of(kafka.topic("orders"), State.DELETED, kafka.topic("orders.dead-letter"), State.DELETED),
                deleted);
        // Deletion reaches the broker's metadata a moment later.
        await().atMost(Duration.ofSeconds(60))
                .until(() -> states(provider.declarer().inspect(request)).values().stream()
                        .allMatch(s -> s == State.MISSING));
        assertTrue(states(provider.declarer().delete(request)).values().stream().allMatch(s -> s == State.MISSING));
    }

    @Test
    void givenSubscriptionGroupRetryTopics_whenTheTopicIsDeleted_thenTheyGoWithItAndOtherTopicsStay() throws Exception {
        KafkaNames names = new KafkaNames(kafka.prefix);
        TopologyRequest request = new TopologyRequest(List.of(), List.of("rides"), false, kafka.group);
        provider.declarer().declare(request);
        String retry = names.topicRetryTopic("rides", names.sharedGroup("billing"));
        String deadLetters = names.topicDeadLetterTopic("rides", names.fanOutGroup("pod-1"));
        String otherTopics = names.topicRetryTopic("tolls", names.sharedGroup("billing"));
        for (String topic : List.of(retry, deadLetters, otherTopics)) {
            kafka.createTopic(topic, 1);
        }
        Map<String, State> deleted = states(provider.declarer().delete(request));
        assertEquals(
                Map.of(names.topicTopic("rides"), State.DELETED, retry, State.DELETED, deadLetters, State.DELETED),
                deleted);
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            var left = kafka.admin().listTopics().names().get(30, TimeUnit.SECONDS);
            return !left.contains(retry) && !left.contains(deadLetters) && left.contains(otherTopics);
        });
    }

    @Test
    void givenTopicNames_thenOnlyASubscriptionGroupsRetryAndDeadLetterTopicsCountAsItsGroupTopics() {
        KafkaNames names = new KafkaNames("p");
        assertTrue(names.isGroupTopicOf("p.topic.rides.grp.billing.retry", "rides"));
        assertTrue(names.isGroupTopicOf("p.topic.rides.sub.pod-1.dead-letter", "rides"));
        assertTrue(!names.isGroupTopicOf("p.topic.rides", "rides"));
        assertTrue(!names.isGroupTopicOf("p.topic.rides.retry", "rides"));
        assertTrue(!names.isGroupTopicOf("p.topic.rides2.grp.billing.retry", "rides"));
        assertTrue(!names.isGroupTopicOf("p.topic.rides.eu", "rides"));
        assertTrue(!names.isGroupTopicOf("p.rides.grp.billing.retry", "rides"));
        // A group name with characters Kafka does not allow in topic names gets a legal, distinct label.
        String odd = names.topicRetryTopic("rides", names.sharedGroup("billing team"));
        assertTrue(odd.matches("p\\.topic\\.rides\\.grp\\.billing_team-[0-9a-f]+\\.retry"), odd);
        assertTrue(!odd.equals(names.topicRetryTopic("rides", names.sharedGroup("billing_team"))));
        assertTrue(names.isGroupTopicOf(odd, "rides"));
    }
}
