package dev.backstage.runtime.rabbitmq;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.backstage.runtime.api.EnqueueResult;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.spi.TopologyRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Retry and dead-letter publish first and ack the original only after the broker confirmed the publish.
 * To make the broker refuse a publish for real, a policy caps the target queue with
 * {@code overflow: reject-publish}: the broker then answers the publish with basic.nack.
 */
@Tag("broker")
class RabbitMqSettlementTest {
    private final RabbitMqTestBroker broker = new RabbitMqTestBroker();

    @AfterEach
    void cleanUp() throws Exception {
        broker.close();
    }

    private void declareQueues() {
        broker.provider("admin")
                .declarer()
                .declare(new TopologyRequest(
                        List.of(TopologyRequest.QueueSpec.named("default")), List.of(), true, null));
    }

    @Test
    void givenARetryCopyTheBrokerRefuses_thenTheOriginalIsNotAckedAndComesBackUnchanged() throws Exception {
        declareQueues();
        String workQueue = broker.queue("default");
        // Only one ready message fits; unacked ones do not count, so the original can be delivered.
        broker.policyOnQueue(workQueue, "{\"max-length\":1,\"overflow\":\"reject-publish\"}");
        CountDownLatch failedOnce = new CountDownLatch(1);
        Worker worker = broker.own(broker.worker("w").concurrency(1).build());
        worker.register("job", String.class, (ctx, s) -> {
            broker.publishRaw(workQueue, "{\"taskName\":\"filler\",\"payload\":0}"); // fills the one slot
            failedOnce.countDown();
            throw new IllegalStateException("fails, so the core asks for a retry");
        });
        worker.start();
        EnqueueResult original = worker.enqueue("job", "payload");

        assertTrue(failedOnce.await(20, TimeUnit.SECONDS));
        // The retry's stage has failed once the core frees the slot; the original must still be unacked.
        await().atMost(Duration.ofSeconds(20))
                .until(() -> worker.inFlight() == 0 && worker.totals().retries() == 1);
        worker.close(); // closing the channel returns unacked deliveries to the queue

        List<String> left = broker.drain(workQueue);
        assertEquals(2, left.size(), "the filler and the original; no retry copy: " + left);
        JsonNode back = broker.json(
                left.stream().filter(b -> b.contains("\"job\"")).findFirst().orElseThrow());
        assertEquals(original.id(), back.get("jobId").asText());
        assertEquals(1, back.get("deliveryCount").asInt(), "it is the original body, not a copy");
    }

    @Test
    void givenADeadLetterTheBrokerRefuses_thenTheOriginalIsNotAckedAndComesBack() throws Exception {
        declareQueues();
        broker.policyOnQueue(broker.queue("default.dead-letter"), "{\"max-length\":0,\"overflow\":\"reject-publish\"}");
        Worker worker = broker.own(broker.worker("w").concurrency(1).build());
        worker.register("job", String.class, (ctx, s) -> Next.done());
        worker.start();
        broker.publishRaw(broker.queue("default"), "not json: goes straight to the dead-letter queue");

        await().atMost(Duration.ofSeconds(20))
                .until(() -> worker.totals().deadLetters() == 1 && worker.inFlight() == 0);
        worker.close();

        assertEquals(
                List.of("not json: goes straight to the dead-letter queue"),
                broker.drain(broker.queue("default")),
                "the original was never acked");
        assertEquals(0, broker.ready(broker.queue("default.dead-letter")));
    }

    @Test
    void givenAConfirmedRetryCopy_thenTheOriginalIsAckedAndTheCopyCarriesTheNextCountAndTheSameJobId()
            throws Exception {
        List<Integer> counts = new CopyOnWriteArrayList<>();
        List<String> ids = new CopyOnWriteArrayList<>();
        Worker worker = broker.own(broker.worker("w").concurrency(1).build());
        worker.register("job", String.class, (ctx, s) -> {
            counts.add(ctx.deliveryCount());
            ids.add(ctx.jobId());
            if (ctx.deliveryCount() < 3) {
                throw new IllegalStateException("not yet");
            }
            return Next.done();
        });
        worker.start();
        EnqueueResult result = worker.enqueue("job", "p");

        await().atMost(Duration.ofSeconds(20)).until(() -> counts.size() == 3 && worker.inFlight() == 0);
        worker.close();
        assertEquals(List.of(1, 2, 3), counts);
        assertEquals(List.of(result.id(), result.id(), result.id()), ids);
        assertEquals(0, broker.ready(broker.queue("default")), "neither the original nor a copy is left");
    }
}
