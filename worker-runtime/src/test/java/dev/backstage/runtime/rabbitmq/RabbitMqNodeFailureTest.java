package dev.backstage.runtime.rabbitmq;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.OutgoingJob;
import dev.backstage.testsupport.SharedBroker;
import dev.backstage.testsupport.UsesSharedBrokers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * 5,000 jobs on a quorum queue of the 3-node cluster; mid-run the node leading that queue is SIGKILLed, then
 * started again. Every job runs (0 lost, checked against the broker's own queue figures), duplicates are counted
 * and printed, publishes the failover left unconfirmed are published again (same job id), and a delayed job due
 * during the failover runs. The time from the kill until jobs flow again is printed, not asserted.
 */
@Tag("broker")
@Tag("slow")
@UsesSharedBrokers(value = SharedBroker.RABBITMQ_CLUSTER, disrupts = true)
class RabbitMqNodeFailureTest {
    private static final int JOBS = 5_000;
    private static final int KILL_AFTER = 1_500;

    private final RabbitMqTestBroker broker = new RabbitMqTestBroker(RabbitMqShape.CLUSTER_QUORUM);
    private String killedNode;

    @AfterEach
    void tearDown() throws Exception {
        if (killedNode != null && !nodeRunning(killedNode)) {
            startNode(killedNode);
            awaitClusterOfThree();
        }
        broker.close();
    }

    @Test
    void givenTheLeaderOfTheBusiestQuorumQueueIsKilledMidRun_thenNoJobIsLostAndADelayedJobStillRuns() throws Exception {
        Map<Integer, AtomicInteger> runs = new ConcurrentHashMap<>();
        ConcurrentLinkedQueue<Long> completedAt = new ConcurrentLinkedQueue<>();
        AtomicLong delayedRanAt = new AtomicLong();
        Worker worker = broker.own(broker.worker("w", Map.of(RabbitMqSettings.OPTION_DELAYED_EXCHANGE, "fallback"))
                .concurrency(8)
                .build());
        worker.register("work", Map.class, (ctx, job) -> {
            runs.computeIfAbsent(((Number) job.get("n")).intValue(), n -> new AtomicInteger())
                    .incrementAndGet();
            completedAt.add(System.nanoTime());
            return Next.done();
        });
        worker.register("delayed", Map.class, (ctx, job) -> {
            delayedRanAt.compareAndSet(0, System.nanoTime());
            return Next.done();
        });
        worker.start();

        await("the work queue exists")
                .atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() -> broker.queueInfo(broker.queue("default"))
                        .path("leader")
                        .asText()
                        .startsWith("bs-"));
        String leader = broker.queueInfo(broker.queue("default")).path("leader").asText();
        RabbitMqProvider producer = producerConnectedTo(leader);
        AtomicInteger republished = new AtomicInteger();
        Thread publishing = new Thread(
                () -> {
                    for (int n = 0; n < JOBS; n++) {
                        publishUntilConfirmed(
                                producer,
                                OutgoingJob.fresh("default", "work", "{\"n\":" + n + "}", JobMeta.NONE),
                                republished);
                    }
                },
                "node-failure-producer");
        publishing.start();

        await().atMost(Duration.ofSeconds(120)).until(() -> runs.size() >= KILL_AFTER);
        assertEquals(
                leader, broker.queueInfo(broker.queue("default")).path("leader").asText(), "same leader");
        // Due ~2 s after the kill, while the cluster elects a new leader and clients reconnect.
        producer.delays()
                .orElseThrow()
                .schedule(
                        OutgoingJob.fresh("default", "delayed", "{}", JobMeta.NONE),
                        Instant.now().plusSeconds(2));
        long killedAt = System.nanoTime();
        killedNode = leader.substring(0, leader.indexOf('@'));
        kill(killedNode);
        int completedAtKill = completedAt.size();

        await("jobs flow again after the kill")
                .atMost(Duration.ofSeconds(120))
                .until(() -> completedAt.size() >= completedAtKill + 100);
        String depthWhileDown = backlogWhileDown(killedNode);
        startNode(killedNode);
        publishing.join(TimeUnit.MINUTES.toMillis(5));
        await("every job ran").atMost(Duration.ofMinutes(3)).until(() -> runs.size() == JOBS);
        await("the delayed job ran").atMost(Duration.ofSeconds(60)).until(() -> delayedRanAt.get() != 0);
        awaitClusterOfThree();
        await("the broker holds nothing of the run")
                .atMost(Duration.ofSeconds(60))
                .until(() -> {
                    RabbitMqCtl.QueueRow row =
                            ctl().listQueues(broker.queue("default")).get(broker.queue("default"));
                    return row != null && row.ready() == 0 && row.unacknowledged() == 0;
                });

        long resumed = completedAt.stream()
                .mapToLong(Long::longValue)
                .filter(t -> t > killedAt)
                .min()
                .orElse(-1);
        long hundredAfter = completedAt.stream()
                .mapToLong(Long::longValue)
                .filter(t -> t > killedAt)
                .sorted()
                .skip(99)
                .findFirst()
                .orElse(-1);
        long[] after = completedAt.stream()
                .mapToLong(Long::longValue)
                .filter(t -> t > killedAt)
                .sorted()
                .toArray();
        long pauseFrom = killedAt;
        long pauseTo = killedAt;
        for (int i = 0; i < after.length; i++) {
            long previous = i == 0 ? killedAt : after[i - 1];
            if (after[i] - previous > pauseTo - pauseFrom) {
                pauseFrom = previous;
                pauseTo = after[i];
            }
        }
        int duplicates = runs.values().stream().mapToInt(r -> r.get() - 1).sum();
        System.out.printf(
                "node failure [3-node quorum]: killed %s (leader of %s) after %d jobs; first job done"
                        + " %.1f s after the kill, 100 jobs done after %.1f s; longest pause in completions after the kill %.1f s"
                        + " (from +%.1f s to +%.1f s: jobs flowing again %.1f s after the kill); delayed job ran %.1f s after the kill;"
                        + " %d publishes unconfirmed and published again; lost %d, duplicated %d (of %d jobs)%n",
                leader,
                broker.queue("default"),
                completedAtKill,
                seconds(resumed - killedAt),
                seconds(hundredAfter - killedAt),
                seconds(pauseTo - pauseFrom),
                seconds(pauseFrom - killedAt),
                seconds(pauseTo - killedAt),
                seconds(pauseTo - killedAt),
                seconds(delayedRanAt.get() - killedAt),
                republished.get(),
                JOBS - runs.size(),
                duplicates,
                JOBS);
        System.out.println("backlog with " + killedNode + " down (its management API listed first): " + depthWhileDown);
        assertEquals(JOBS, runs.size(), "lost jobs");
        assertEquals(
                0,
                ctl().listQueues(broker.queue("default.dead-letter")).values().stream()
                        .mapToLong(RabbitMqCtl.QueueRow::ready)
                        .sum(),
                "nothing dead-lettered");
    }

    /**
     * A producer whose publishing connection is on the node about to be killed, so its in-flight confirms are lost
     * for real. The client picks a node of the list at random; the management API says which one it took.
     */
    private RabbitMqProvider producerConnectedTo(String node) throws Exception {
        for (int attempt = 0; attempt < 30; attempt++) {
            String name = broker.prefix + "-producer-" + attempt;
            RabbitMqProvider producer = broker.provider(
                    "producer",
                    Map.of(
                            RabbitMqSettings.OPTION_DELAYED_EXCHANGE,
                            "fallback",
                            RabbitMqSettings.OPTION_CONFIRM_TIMEOUT_MS,
                            "5000",
                            RabbitMqSettings.OPTION_CONNECTION_NAME,
                            name));
            broker.awaitConnectionListed(name + "/publish");
            for (com.fasterxml.jackson.databind.JsonNode connection : broker.get("/api/connections")) {
                if ((name + "/publish")
                                .equals(connection
                                        .path("client_properties")
                                        .path("connection_name")
                                        .asText())
                        && node.equals(connection.path("node").asText())) {
                    return producer;
                }
            }
            producer.close();
        }
        throw new AssertionError("no producer connection landed on " + node + " in 30 attempts");
    }

    /**
     * The backlog probe the operator's autoscaler uses, with the management API of every node and the dead one first:
     * it must still report ready and unacked from the management API (of another node), not fall back to AMQP.
     */
    private String backlogWhileDown(String deadNode) throws Exception {
        List<String> roots = new java.util.ArrayList<>(
                List.of("http://127.0.0.1:15681", "http://127.0.0.1:15682", "http://127.0.0.1:15683"));
        String dead = roots.remove(deadNode.charAt(3) - 'a');
        roots.add(0, dead);
        RabbitMqProvider probing =
                broker.provider("probe", Map.of(RabbitMqSettings.OPTION_MANAGEMENT_URL, String.join(",", roots)));
        java.util.concurrent.atomic.AtomicReference<dev.backstage.runtime.spi.QueueBacklog> seen =
                new java.util.concurrent.atomic.AtomicReference<>();
        await("depth from another node's management API")
                .atMost(Duration.ofSeconds(30))
                .until(() -> {
                    seen.set(probing.backlogProbe()
                            .measure(List.of("default"), null)
                            .queues()
                            .get(0));
                    return seen.get().note().contains("unacked from the management API");
                });
        return seen.get().toString();
    }

    /** An unconfirmed publish (the failover) is published again: at least once, same job id, never dropped. */
    private static void publishUntilConfirmed(RabbitMqProvider producer, OutgoingJob job, AtomicInteger republished) {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (true) {
            try {
                producer.jobs().publish(job);
                return;
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                republished.incrementAndGet();
                await().pollDelay(Duration.ofMillis(200))
                        .atMost(Duration.ofSeconds(1))
                        .until(() -> true);
            }
        }
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }

    private static Path nodeDir(String node) {
        return Path.of(RabbitMqShape.CLUSTER_DIR, node);
    }

    private static void kill(String node) throws Exception {
        long pid = Long.parseLong(Files.readString(nodeDir(node).resolve("pid"), StandardCharsets.UTF_8)
                .trim());
        ProcessHandle handle = ProcessHandle.of(pid).orElseThrow(() -> new AssertionError(node + " is not running"));
        handle.destroyForcibly(); // SIGKILL
        await(node + " is gone").atMost(Duration.ofSeconds(30)).until(() -> !handle.isAlive());
    }

    private static boolean nodeRunning(String node) throws Exception {
        Path pid = nodeDir(node).resolve("pid");
        return Files.exists(pid)
                && ProcessHandle.of(Long.parseLong(Files.readString(pid).trim()))
                        .map(ProcessHandle::isAlive)
                        .orElse(false);
    }

    private static void startNode(String node) throws Exception {
        Process start = new ProcessBuilder(nodeDir(node).resolve("start").toString())
                .inheritIO()
                .start();
        assertTrue(start.waitFor(60, TimeUnit.SECONDS) && start.exitValue() == 0, "started " + node);
    }

    private void awaitClusterOfThree() {
        await("all three nodes run again")
                .atMost(Duration.ofMinutes(3))
                .pollInterval(Duration.ofSeconds(1))
                .ignoreExceptions()
                .until(() -> List.of("3").equals(ctl().eval("length(rabbit_nodes:all_running()).")));
    }

    /** rabbitmqctl against a node that was not killed. */
    private RabbitMqCtl ctl() {
        String node = "bs-a".equals(killedNode) ? "bs-b" : "bs-a";
        return new RabbitMqCtl(RabbitMqShape.CLUSTER_DIR + "/ctl", node + "@localhost");
    }
}
