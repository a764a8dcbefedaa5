package dev.backstage.runtime.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.spi.BacklogReport;
import dev.backstage.runtime.spi.QueueBacklog;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.internals.Exit;
import org.apache.kafka.tools.consumer.group.ConsumerGroupCommand;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The backlog probe against Kafka's own consumer-group tool and the admin client. */
@Tag("broker")
class KafkaBacklogProbeTest {
    private final KafkaTestSupport kafka = new KafkaTestSupport();
    private final KafkaProvider provider = kafka.provider();

    @AfterEach
    void tearDown() {
        provider.close();
        kafka.close();
    }

    private void produce(String topic, int partition, int count) throws Exception {
        String[] values = new String[count];
        for (int i = 0; i < count; i++) {
            values[i] = "{\"taskName\":\"t\",\"payload\":" + i + "}";
        }
        kafka.produceRaw(topic, partition, values);
    }

    /** Commits {@code offsets} for {@code group} as a group-less-assignment consumer would. */
    private void commit(String group, Map<TopicPartition, Long> offsets) {
        Map<String, Object> config = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG,
                group,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false);
        try (var consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
            offsets.forEach((tp, o) -> commit.put(tp, new OffsetAndMetadata(o)));
            consumer.commitSync(commit, Duration.ofSeconds(30));
        }
    }

    /** One row of {@code kafka-consumer-groups --describe}: current offset, log end offset, lag. */
    private record ToolRow(long current, long logEnd, long lag) {}

    /** Runs Kafka's ConsumerGroupCommand in-process and parses its table. */
    private Map<Integer, ToolRow> describeWithKafkaTool(String group, String topic) {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream original = System.out;
        Exit.setExitProcedure((status, message) -> {
            throw new IllegalStateException("kafka-consumer-groups exited " + status + ": " + message);
        });
        synchronized (System.class) {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            try {
                ConsumerGroupCommand.main(
                        new String[] {"--bootstrap-server", kafka.bootstrap, "--describe", "--group", group});
            } finally {
                System.setOut(original);
                Exit.resetExitProcedure();
            }
        }
        String out = captured.toString(StandardCharsets.UTF_8);
        System.out.println("kafka-consumer-groups --describe --group " + group + ":\n" + out);
        Map<Integer, ToolRow> rows = new HashMap<>();
        for (String line : out.split("\n")) {
            String[] cols = line.trim().split("\\s+");
            if (cols.length >= 6 && cols[0].equals(group) && cols[1].equals(topic)) {
                rows.put(
                        Integer.parseInt(cols[2]),
                        new ToolRow(Long.parseLong(cols[3]), Long.parseLong(cols[4]), Long.parseLong(cols[5])));
            }
        }
        return rows;
    }

    @Test
    void givenPartlyCommittedPartitions_whenMeasured_thenLagMatchesKafkasConsumerGroupTool() throws Exception {
        String topic = kafka.topic("orders");
        kafka.createTopic(topic, 3);
        produce(topic, 0, 10);
        produce(topic, 1, 7);
        produce(topic, 2, 4);
        String dlq = kafka.topic("orders.dead-letter");
        kafka.createTopic(dlq, 1);
        produce(dlq, 0, 3);
        commit(
                kafka.group,
                Map.of(
                        new TopicPartition(topic, 0),
                        5L,
                        new TopicPartition(topic, 1),
                        7L,
                        new TopicPartition(topic, 2),
                        1L));

        QueueBacklog backlog = provider.backlogProbe()
                .measure(List.of("orders"), kafka.group)
                .queues()
                .get(0);
        Map<Integer, ToolRow> tool = describeWithKafkaTool(kafka.group, topic);

        assertEquals(3, tool.size(), "the tool lists every committed partition");
        assertEquals(3, backlog.partitions().size());
        long toolTotal = 0;
        for (QueueBacklog.PartitionBacklog p : backlog.partitions()) {
            ToolRow row = tool.get(p.partition());
            assertEquals(row.current(), p.committedOffset(), "partition " + p.partition());
            assertEquals(row.logEnd(), p.endOffset(), "partition " + p.partition());
            assertEquals(row.lag(), p.lag(), "partition " + p.partition());
            toolTotal += row.lag();
        }
        assertEquals(toolTotal, backlog.undelivered());
        assertEquals(5 + 0 + 3, backlog.undelivered());
        assertEquals(0, backlog.inFlight());
        assertEquals(3, backlog.deadLetters());
        assertTrue(backlog.note().contains("inFlight"), backlog.note());
    }

    @Test
    void givenAGroupThatNeverCommitted_whenOldRecordsWereDeleted_thenLagCountsFromTheLogStartNotFromZero()
            throws Exception {
        String topic = kafka.topic("emails");
        kafka.createTopic(topic, 2);
        produce(topic, 0, 10);
        produce(topic, 1, 3);
        TopicPartition p0 = new TopicPartition(topic, 0);
        kafka.admin()
                .deleteRecords(Map.of(p0, RecordsToDelete.beforeOffset(4)))
                .all()
                .get(30, TimeUnit.SECONDS);
        // The tool prints no lag for partitions without a commit; the admin client's log start and end are the
        // reference here.
        long start0 = kafka.admin()
                .listOffsets(Map.of(p0, OffsetSpec.earliest()))
                .partitionResult(p0)
                .get(30, TimeUnit.SECONDS)
                .offset();
        assertEquals(4, start0);

        BacklogReport report = provider.backlogProbe().measure(List.of("emails"), kafka.prefix + "-nobody");
        QueueBacklog backlog = report.queues().get(0);
        assertEquals(
                List.of(
                        new QueueBacklog.PartitionBacklog(0, 10, -1, 6),
                        new QueueBacklog.PartitionBacklog(1, 3, -1, 3)),
                backlog.partitions());
        assertEquals(9, backlog.undelivered());
        assertEquals(0, backlog.deadLetters());
        assertTrue(backlog.note().contains("log start"), backlog.note());
    }

    @Test
    void givenAQueueWhoseTopicDoesNotExist_thenItReportsNothingOutstandingAndSaysWhy() {
        QueueBacklog backlog = provider.backlogProbe()
                .measure(List.of("never-made"), kafka.group)
                .queues()
                .get(0);
        assertEquals(0, backlog.outstanding());
        assertTrue(backlog.note().contains("does not exist"), backlog.note());
    }
}
