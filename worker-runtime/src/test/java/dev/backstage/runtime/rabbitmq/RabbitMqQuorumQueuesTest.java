package dev.backstage.runtime.rabbitmq;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.OutgoingJob;
import dev.backstage.runtime.spi.TopologyRequest;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Quorum queues on the 3-node cluster: what the declarations make of them on the broker (type, members on every
 * node, delivery limit, dead-letter target), and a job that crashes its worker JVM every time it runs ending in
 * the dead-letter queue through the broker's delivery limit instead of crash-looping.
 */
@Tag("broker")
class RabbitMqQuorumQueuesTest {
    private static final int DELIVERY_LIMIT = 2;

    private final RabbitMqTestBroker broker = new RabbitMqTestBroker(RabbitMqShape.CLUSTER_QUORUM);
    private final List<Process> children = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (Process child : children) {
            child.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        broker.close();
    }

    @Test
    void givenQueueTypeQuorum_whenATopologyIsDeclared_thenEveryQueueIsAQuorumQueueOnAllThreeNodes() throws Exception {
        RabbitMqProvider provider =
                broker.provider("declarer", Map.of(RabbitMqSettings.OPTION_DELAYED_EXCHANGE, "fallback"));
        provider.declarer()
                .declare(new TopologyRequest(
                        List.of(TopologyRequest.QueueSpec.named("orders")), List.of("events"), true, null));

        JsonNode work = broker.queueInfo(broker.queue("orders"));
        assertEquals("quorum", work.path("type").asText(), work.toString());
        assertEquals(3, work.path("members").size(), "a member on each node: " + work.path("members"));
        JsonNode arguments = work.path("arguments");
        assertEquals(20, arguments.path("x-delivery-limit").asInt(), arguments.toString());
        assertEquals("", arguments.path("x-dead-letter-exchange").asText("missing"), arguments.toString());
        assertEquals(
                broker.queue("orders.dead-letter"),
                arguments.path("x-dead-letter-routing-key").asText());
        assertEquals("at-least-once", arguments.path("x-dead-letter-strategy").asText());
        JsonNode deadLetters = broker.queueInfo(broker.queue("orders.dead-letter"));
        assertEquals("quorum", deadLetters.path("type").asText(), deadLetters.toString());
        // RabbitMQ 4.0+ would otherwise give it a delivery limit of 20, and every read of a dead letter counts.
        assertEquals(
                Integer.MAX_VALUE,
                deadLetters.path("arguments").path("x-delivery-limit").asLong(),
                "the dead-letter queue's own delivery limit: " + deadLetters.path("arguments"));
        JsonNode level = broker.queueInfo(broker.queue("delay-level.00"));
        assertEquals("quorum", level.path("type").asText(), "the delay ladder too: " + level);
        assertEquals(100, level.path("arguments").path("x-message-ttl").asInt(), level.toString());
        assertEquals(
                "at-least-once",
                level.path("arguments").path("x-dead-letter-strategy").asText());
    }

    @Test
    void givenQuorumQueuesWhoseStatisticsAreStale_whenJobsAndDeadLettersArrive_thenTheProbeCountsThemAtOnce()
            throws Exception {
        RabbitMqProvider provider = broker.provider("probe");
        provider.declarer()
                .declare(
                        new TopologyRequest(List.of(TopologyRequest.QueueSpec.named("orders")), List.of(), true, null));
        String work = broker.queue("orders");
        String dead = broker.queue("orders.dead-letter");
        // The state that made dead letters "vanish": the management API has figures for both queues, all 0, and
        // keeps them until the queues' leaders tick and the statistics are collected again (10 s and more).
        await("the management API's first figures for both queues")
                .atMost(Duration.ofMinutes(5))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> broker.queueInfo(work).has("messages")
                        && broker.queueInfo(dead).has("messages"));

        for (int i = 0; i < 3; i++) {
            provider.jobs().publish(OutgoingJob.fresh("orders", "t", "{\"n\":" + i + "}", JobMeta.NONE));
        }
        broker.publishRaw(dead, "{\"taskName\":\"t\",\"error\":\"boom\"}");
        broker.publishRaw(dead, "{\"taskName\":\"t\",\"error\":\"boom\"}");
        var measured = provider.backlogProbe()
                .measure(List.of("orders"), "ignored")
                .queues()
                .get(0);
        JsonNode snapshot = broker.queueInfo(dead);

        assertEquals(2, broker.countByGet(dead), "the broker holds both dead letters");
        assertEquals(3, broker.countByGet(work), "and the three jobs");
        System.out.println("right after the confirms: probe " + measured.undelivered() + " undelivered, "
                + measured.deadLetters() + " dead letters; management API snapshot of " + dead + ": messages="
                + snapshot.path("messages"));
        assertEquals(2, measured.deadLetters(), "dead letters counted from the queue, not a stale snapshot");
        assertEquals(
                3,
                measured.undelivered(),
                "ready jobs counted from the queue, not a stale snapshot: " + measured.note());
    }

    @Test
    void givenAJobThatCrashesItsWorkerEveryTime_whenWorkersKeepRestarting_thenTheBrokerDeadLettersItAfterTheLimit()
            throws Exception {
        Map<String, String> options = Map.of(RabbitMqSettings.OPTION_DELIVERY_LIMIT, String.valueOf(DELIVERY_LIMIT));
        try (RabbitMqProvider producer = RabbitMqProvider.connect(broker.settings("producer", options))) {
            producer.jobs().publish(OutgoingJob.fresh("default", "crash", "{\"n\":7}", JobMeta.NONE));
        }
        String deadLetters = broker.queue("default.dead-letter");
        int crashes = 0;
        // Each worker takes the job and halts; the broker counts the unsettled return. Bounded: a loop would never end.
        for (int restart = 0; restart < DELIVERY_LIMIT + 3 && broker.ready(deadLetters) == 0; restart++) {
            if (runUntilItCrashesOrIdles("worker-" + restart, options)) {
                crashes++;
            }
        }
        await("the job reaches the dead-letter queue")
                .atMost(Duration.ofSeconds(30))
                .until(() -> broker.ready(deadLetters) == 1);
        assertEquals(0, broker.ready(broker.queue("default")), "nothing left to crash-loop on");
        assertEquals(DELIVERY_LIMIT + 1, crashes, "ran once, then once per allowed return");
        JsonNode deadLetter = broker.json(broker.drain(deadLetters).get(0));
        assertEquals("crash", deadLetter.path("taskName").asText(), "the job itself, as published: " + deadLetter);
        System.out.printf(
                "poison job: crashed its worker %d times, then dead-lettered by the broker (limit %d)%n",
                crashes, DELIVERY_LIMIT);
    }

    /** True when the worker JVM halted on the job; false when it consumed without crashing (nothing left). */
    private boolean runUntilItCrashesOrIdles(String consumerId, Map<String, String> options) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m",
                "-cp",
                System.getProperty("java.class.path"),
                PoisonWorkerMain.class.getName(),
                broker.shape.url,
                broker.prefix,
                broker.prefix + "-" + consumerId));
        broker.settings("poison", options).options().forEach((k, v) -> command.add(k + "=" + v));
        Process child = new ProcessBuilder(command)
                .redirectError(new File("target/poison-" + consumerId + ".log"))
                .start();
        children.add(child);
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            boolean started = false;
            while ((line = out.readLine()) != null) {
                if (line.startsWith("CRASH")) {
                    assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the worker halted");
                    return true;
                }
                if (line.equals("STARTED")) {
                    started = true;
                    break;
                }
            }
            assertTrue(started, "the poison worker started (see target/poison-" + consumerId + ".log)");
            // Consuming: it crashes at once when the job is there; when the broker dead-lettered it, it idles.
            String next = readLineWithin(out, child, Duration.ofSeconds(15));
            return next != null && next.startsWith("CRASH") && child.waitFor(30, TimeUnit.SECONDS);
        } finally {
            child.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** The child's next line once one is ready or the child has exited; null when none comes within {@code max}. */
    private static String readLineWithin(BufferedReader out, Process child, Duration max) throws Exception {
        try {
            await("a line from the worker")
                    .atMost(max)
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> out.ready() || !child.isAlive());
        } catch (ConditionTimeoutException e) {
            return null; // it idles: the broker dead-lettered the job, nothing is left to crash on
        }
        return out.readLine();
    }
}
