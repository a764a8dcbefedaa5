package dev.backstage.runtime.rabbitmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.spi.DeadLetterEntry;
import dev.backstage.runtime.spi.DeadLetterQueue;
import dev.backstage.runtime.spi.TopologyRequest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The console's dead-letter operations on the real RabbitMQ: pages after an entry, redrive one and delete one by id,
 * each checked against what the broker's queues then hold (the dead-letter queue's own order and count, the work
 * queue's bodies). On both shapes ({@link RabbitMqShape}): a classic dead-letter queue on the single node and a
 * quorum one on the 3-node cluster, which must keep the same order after the reads put their messages back. The
 * queues are declared as the provider declares them: on RabbitMQ 3.10 a quorum queue without a delivery limit puts
 * returned messages at its tail, one with a limit at its head.
 */
@Tag("broker")
@ParameterizedClass(name = "{0}")
@EnumSource(RabbitMqShape.class)
class RabbitMqDeadLetterPagesTest {
    private final RabbitMqTestBroker broker;
    private final DeadLetterQueue dlq;

    RabbitMqDeadLetterPagesTest(RabbitMqShape shape) {
        broker = new RabbitMqTestBroker(shape);
        RabbitMqProvider provider = broker.provider("dead-letters");
        provider.declarer()
                .declare(new TopologyRequest(
                        List.of(TopologyRequest.QueueSpec.named("paged"), TopologyRequest.QueueSpec.named("single")),
                        List.of(),
                        true,
                        null));
        dlq = provider.deadLetters();
    }

    @AfterEach
    void stop() throws Exception {
        broker.close();
    }

    private static String deadLetter(String jobId, int n) {
        return "{\"taskName\":\"send\",\"payload\":{\"n\":" + n + "},\"enqueuedAt\":1718900000000,\"deliveryCount\":3,"
                + "\"jobId\":\"" + jobId + "\",\"error\":\"boom " + n + "\",\"originalId\":\"first-" + n + "\","
                + "\"deadLetteredAt\":1718900005000}";
    }

    /** The job ids in the dead-letter queue, head first, as the broker holds them (read and put back by the test). */
    private List<String> idsOnTheBroker(String queue) throws Exception {
        List<String> bodies = broker.drain(broker.queue(queue) + ".dead-letter");
        List<String> ids = new ArrayList<>();
        for (String body : bodies) {
            ids.add(broker.json(body).get("jobId").asText());
            broker.publishRaw(broker.queue(queue) + ".dead-letter", body);
        }
        return ids;
    }

    @Test
    void givenSevenDeadLetters_whenPagedByThree_thenEachPageStartsAfterTheLastAndTheQueueKeepsItsOrder()
            throws Exception {
        for (int n = 0; n < 7; n++) {
            broker.publishRaw(broker.queue("paged") + ".dead-letter", deadLetter("job-" + n, n));
        }
        List<String> first =
                dlq.page("paged", null, 3).stream().map(DeadLetterEntry::id).toList();
        List<String> second =
                dlq.page("paged", "job-2", 3).stream().map(DeadLetterEntry::id).toList();
        List<DeadLetterEntry> third = dlq.page("paged", "job-5", 3);
        assertEquals(List.of("job-0", "job-1", "job-2"), first);
        assertEquals(List.of("job-3", "job-4", "job-5"), second);
        assertEquals(List.of("job-6"), third.stream().map(DeadLetterEntry::id).toList());
        assertEquals("boom 6", third.get(0).error());
        assertEquals("{\"n\":6}", third.get(0).payloadJson());
        assertEquals(List.of(), dlq.page("paged", "no-such-entry", 3), "an entry that is gone: nothing after it");
        assertEquals(7, broker.countByGet(broker.queue("paged") + ".dead-letter"), "every page put its messages back");
        assertEquals(
                List.of("job-0", "job-1", "job-2", "job-3", "job-4", "job-5", "job-6"),
                idsOnTheBroker("paged"),
                "in their order");
    }

    @Test
    void givenDeadLetters_whenOneIsRedrivenAndAnotherDeleted_thenOnlyThoseLeaveAndTheRedrivenOneIsAFreshJob()
            throws Exception {
        for (int n = 0; n < 4; n++) {
            broker.publishRaw(broker.queue("single") + ".dead-letter", deadLetter("job-" + n, n));
        }
        assertTrue(dlq.supportsSingleEntries());
        assertTrue(dlq.redriveOne("single", "job-2"));
        assertEquals(List.of("job-0", "job-1", "job-3"), idsOnTheBroker("single"));
        List<String> work = broker.drain(broker.queue("single"));
        assertEquals(1, work.size(), work.toString());
        var job = broker.json(work.get(0));
        assertEquals("job-2", job.get("jobId").asText());
        assertEquals(1, job.get("deliveryCount").asInt(), "a fresh job");
        assertEquals(2, job.get("payload").get("n").asInt());
        assertFalse(job.has("error"), "the dead-letter fields are gone");

        assertTrue(dlq.delete("single", "job-0"));
        assertEquals(List.of("job-1", "job-3"), idsOnTheBroker("single"));
        assertEquals(0, broker.countByGet(broker.queue("single")), "a delete publishes nothing");

        assertFalse(dlq.delete("single", "job-0"), "already gone");
        assertFalse(dlq.redriveOne("single", "job-9"));
        assertFalse(dlq.redriveOne("no-such-queue", "job-1"));
        assertEquals(List.of("job-1", "job-3"), idsOnTheBroker("single"), "a miss puts everything back");
    }
}
