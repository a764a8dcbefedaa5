package dev.backstage.runtime.kafka;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

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

/** Listing, counting and redriving the dead-letter topic. */
@Tag("broker")
class KafkaDeadLettersTest {
    private final KafkaTestSupport kafka = new KafkaTestSupport();
    private final KafkaProvider provider = kafka.provider();
    private final ObjectMapper json = new ObjectMapper();

    @AfterEach
    void tearDown() {
        provider.close();
        kafka.close();
    }

    private static String deadLetter(int n, boolean withJobId) {
        return "{\"taskName\":\"send\",\"payload\":{\"n\":" + n + "},\"enqueuedAt\":1718900000000,\"meta\":{\"attempts\":2},"
                + "\"deliveryCount\":3" + (withJobId ? ",\"jobId\":\"job-" + n + "\"" : "")
                + ",\"error\":\"boom " + n + "\",\"originalId\":\"x.emails:0:" + n + "\",\"deadLetteredAt\":1718900005000}";
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
        assertEquals(kafka.prefix + ".emails.dead-letter:0:2", provider.deadLetters().list("emails", 10).get(0).id());
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
        await().atMost(Duration.ofSeconds(10)).until(() -> kafka.readAll(dlq, 0).isEmpty());
    }
}
