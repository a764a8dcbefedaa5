package dev.backstage.runtime.kafka;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.backstage.runtime.spi.DeadLetterEntry;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Listing, paging, counting and redriving the dead-letter topic, and settling one entry of it, on both cluster
 * shapes ({@link KafkaShape}): the behaviour does not depend on the shape.
 */
@Tag("broker")
@ParameterizedClass(name = "{0}")
@EnumSource(KafkaShape.class)
class KafkaDeadLettersTest {
    private final KafkaTestSupport kafka;
    private final KafkaProvider provider;
    private final ObjectMapper json = new ObjectMapper();

    KafkaDeadLettersTest(KafkaShape shape) {
        kafka = new KafkaTestSupport(shape);
        provider = kafka.provider();
    }

    @AfterEach
    void tearDown() {
        provider.close();
        kafka.close();
    }

    private static String deadLetter(int n, boolean withJobId) {
        return "{\"taskName\":\"send\",\"payload\":{\"n\":" + n
                + "},\"enqueuedAt\":1718900000000,\"meta\":{\"attempts\":2},"
                + "\"deliveryCount\":3" + (withJobId ? ",\"jobId\":\"job-" + n + "\"" : "")
                + ",\"error\":\"boom " + n + "\",\"originalId\":\"x.emails:0:" + n
                + "\",\"deadLetteredAt\":1718900005000}";
    }

    @Test
    void givenDeadLetters_whenListed_thenEntriesComeOldestFirstWithTheirErrors() throws Exception {
        String dlq = kafka.topic("emails.dead-letter");
        kafka.createTopic(dlq, 1);
        kafka.produceRaw(dlq, 0, deadLetter(0, true), deadLetter(1, false), "raw garbage");
        List<DeadLetterEntry> entries = provider.deadLetters().list("emails", 10);
        assertEquals(3, entries.size());
        DeadLetterEntry first = entries.get(0);
        assertEquals(dlq + ":0:0", first.id());
        assertEquals("emails", first.queue());
        assertEquals("send", first.taskName());
        assertEquals("{\"n\":0}", first.payloadJson());
        assertEquals("boom 0", first.error());
        assertEquals(3, first.deliveryCount());
        assertEquals(1718900005000L, first.deadLetteredAtMs());
        assertEquals("x.emails:0:0", first.originalId());
        assertNull(entries.get(2).taskName());
        assertEquals("raw garbage", entries.get(2).payloadJson());
        assertEquals(2, provider.deadLetters().list("emails", 2).size());
        assertEquals(3, provider.deadLetters().count("emails"));
        assertEquals(List.of(), provider.deadLetters().list("no-such-queue", 10));
        assertEquals(0, provider.deadLetters().count("no-such-queue"));
    }

    @Test
    void givenARedriveInTwoParts_whenBothRun_thenEveryEntryIsBackOnTheQueueOnceAsAFreshJobWithItsJobId()
            throws Exception {
        String dlq = kafka.topic("emails.dead-letter");
        kafka.createTopic(dlq, 1);
        for (int n = 0; n < 5; n++) {
            kafka.produceRaw(dlq, 0, deadLetter(n, n % 2 == 0));
        }
        // The first redrive stops after two entries (as an interrupted one would); the second picks up after them.
        assertEquals(2, provider.deadLetters().redrive("emails", 2));
        assertEquals(3, provider.deadLetters().count("emails"));
        assertEquals(3, provider.deadLetters().list("emails", 10).size());
        assertEquals(
                kafka.prefix + ".emails.dead-letter:0:2",
                provider.deadLetters().list("emails", 10).get(0).id());
        assertEquals(3, provider.deadLetters().redrive("emails", 100));
        assertEquals(0, provider.deadLetters().count("emails"));
        assertEquals(0, provider.deadLetters().redrive("emails", 100));

        var records = kafka.readAll(kafka.topic("emails"), 5);
        assertEquals(5, records.size(), "each entry exactly once");
        Set<String> jobIds = new TreeSet<>();
        for (var r : records) {
            JsonNode v = json.readTree(KafkaTestSupport.text(r));
            assertEquals("send", v.get("taskName").asText());
            assertEquals(1, v.get("deliveryCount").asInt(), "redriven as a fresh job");
            assertEquals(2, v.get("meta").get("attempts").asInt());
            assertEquals(1718900000000L, v.get("enqueuedAt").asLong());
            jobIds.add(v.get("jobId").asText());
        }
        // Entries without a jobId take their first delivery's id (originalId), docs/wire-format.md
        assertEquals(new TreeSet<>(List.of("job-0", "x.emails:0:1", "job-2", "x.emails:0:3", "job-4")), jobIds);
        // The moved records were deleted from the dead-letter topic, so other tools stop seeing them too.
        await().atMost(Duration.ofSeconds(60)).until(() -> kafka.readAll(dlq, 0).isEmpty());
    }

    private List<String> ids(List<DeadLetterEntry> entries) {
        return entries.stream().map(DeadLetterEntry::id).toList();
    }

    @Test
    void givenTwoPartitions_whenPagedByTwo_thenPagesFollowPartitionThenOffsetFromTheEntryTheyStartAfter()
            throws Exception {
        String dlq = kafka.topic("emails.dead-letter");
        kafka.createTopic(dlq, 2);
        kafka.produceRaw(dlq, 0, deadLetter(0, true), deadLetter(1, true), deadLetter(2, true));
        kafka.produceRaw(dlq, 1, deadLetter(3, true), deadLetter(4, true));
        var dead = provider.deadLetters();
        assertEquals(List.of(dlq + ":0:0", dlq + ":0:1"), ids(dead.page("emails", null, 2)));
        assertEquals(List.of(dlq + ":0:2", dlq + ":1:0"), ids(dead.page("emails", dlq + ":0:1", 2)));
        List<DeadLetterEntry> last = dead.page("emails", dlq + ":1:0", 2);
        assertEquals(List.of(dlq + ":1:1"), ids(last));
        assertEquals("boom 4", last.get(0).error());
        assertEquals(List.of(), dead.page("emails", dlq + ":1:1", 2));
        IllegalArgumentException bad =
                assertThrows(IllegalArgumentException.class, () -> dead.page("emails", "other-topic:0:1", 2));
        assertTrue(bad.getMessage().contains("is not " + dlq + ":<partition>:<offset>"), bad.getMessage());
        assertEquals(5, dead.count("emails"), "paging settles nothing");
    }

    @Test
    void givenDeadLetters_whenOneIsRedrivenAndOneDeletedOutOfOrder_thenEveryReadSkipsThemAndRedriveAllMovesTheRest()
            throws Exception {
        String dlq = kafka.topic("emails.dead-letter");
        kafka.createTopic(dlq, 1);
        for (int n = 0; n < 5; n++) {
            kafka.produceRaw(dlq, 0, deadLetter(n, true));
        }
        var dead = provider.deadLetters();
        assertTrue(dead.supportsSingleEntries());
        assertTrue(dead.redriveOne("emails", dlq + ":0:2"));
        assertTrue(dead.delete("emails", dlq + ":0:3"));
        assertFalse(dead.delete("emails", dlq + ":0:3"), "already settled");
        assertFalse(dead.redriveOne("emails", dlq + ":0:9"), "no such offset");

        // The broker's own state: one job on the work topic, the markers in the redrive group's commit metadata.
        var work = kafka.readAll(kafka.topic("emails"), 1);
        assertEquals(1, work.size());
        JsonNode job = json.readTree(KafkaTestSupport.text(work.get(0)));
        assertEquals("job-2", job.get("jobId").asText());
        assertEquals(1, job.get("deliveryCount").asInt());
        var commit = kafka.committedWithMetadata(provider.settings().names().redriveGroup(), dlq, 0);
        assertEquals(0, commit.offset(), "the oldest entry is still dead-lettered");
        assertEquals(
                List.of(2L, 3L),
                java.util.Arrays.stream(CommitMetadata.decode(0, commit.metadata()))
                        .boxed()
                        .toList());
        assertEquals(3, dead.count("emails"));
        assertEquals(List.of(dlq + ":0:0", dlq + ":0:1", dlq + ":0:4"), ids(dead.list("emails", 10)));
        assertEquals(List.of(dlq + ":0:4"), ids(dead.page("emails", dlq + ":0:1", 10)));
        assertEquals(
                3,
                provider.backlogProbe()
                        .measure(List.of("emails"), "nobody")
                        .queues()
                        .get(0)
                        .deadLetters());

        // Settling the oldest moves the offset past it and the markers after it, and deletes those records.
        assertTrue(dead.delete("emails", dlq + ":0:0"));
        assertTrue(dead.redriveOne("emails", dlq + ":0:1"));
        assertEquals(4, kafka.committed(provider.settings().names().redriveGroup(), dlq, 0));
        await().atMost(Duration.ofSeconds(60)).until(() -> kafka.readAll(dlq, 0).size() == 1);
        assertEquals(1, dead.redrive("emails", 100));
        assertEquals(0, dead.count("emails"));
        Set<String> jobIds = new TreeSet<>();
        for (var r : kafka.readAll(kafka.topic("emails"), 3)) {
            jobIds.add(json.readTree(KafkaTestSupport.text(r)).get("jobId").asText());
        }
        assertEquals(
                new TreeSet<>(List.of("job-1", "job-2", "job-4")), jobIds, "each redriven once, the deleted never");
    }
}
