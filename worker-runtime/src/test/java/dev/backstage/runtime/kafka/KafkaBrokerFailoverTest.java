package dev.backstage.runtime.kafka;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.redis.RedisDelays;
import dev.backstage.runtime.redis.RedisTestSupport;
import dev.backstage.testsupport.KafkaCluster;
import dev.backstage.testsupport.UniqueNames;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A broker of a 3-node cluster dies (SIGKILL) in the middle of 5,000 jobs on a topic with replication factor 3
 * and {@code min.insync.replicas} 2: the broker leading the most of its partitions, once 1,000 jobs ran, while the
 * rest are still being enqueued and run; a delayed job falls due during the failover, and the operator's backlog
 * probe reads the lag with the broker down.
 * Nothing may be lost: every job runs, the topic holds every job's record, and the group's committed offsets
 * reach the end of every partition, as the surviving brokers report them. Duplicates and the time from the kill
 * until the dead broker's partitions deliver again are printed, not asserted.
 */
@Tag("broker")
@Tag("slow")
class KafkaBrokerFailoverTest {
    record Job(int n) {}

    private static final int JOBS = 5_000;
    private static final int PARTITIONS = 6;
    private static final int LATE = -1; // the delayed job's number
    // Enqueue waits for the ack of all in-sync replicas; concurrent enqueues share produce requests.
    private static final int PRODUCERS = 16;

    private final RedisTestSupport redis = new RedisTestSupport();
    private final String prefix = UniqueNames.prefix("bkfail");
    private final String group = UniqueNames.prefix("workers");
    private KafkaCluster cluster;
    /**
     * How fast the controller fences a broker that stopped heart-beating: Kafka's defaults (9,000 and 2,000 ms) unless
     * {@code -Dbackstage.kafka.brokerSessionTimeoutMs} and {@code -Dbackstage.kafka.brokerHeartbeatIntervalMs} say
     * otherwise, to compare (docs/providers/kafka-cluster.md has the runs). Printed with the results.
     */
    private static final Map<String, String> FENCING = Map.of(
            "broker.session.timeout.ms", System.getProperty("backstage.kafka.brokerSessionTimeoutMs", "9000"),
            "broker.heartbeat.interval.ms", System.getProperty("backstage.kafka.brokerHeartbeatIntervalMs", "2000"));

    private Worker worker;

    @AfterEach
    void tearDown() {
        if (worker != null) {
            worker.close();
        }
        if (cluster != null) {
            cluster.close();
        }
        redis.close();
    }

    @Test
    void givenTheBrokerLeadingMostPartitions_whenKilledMidRun_thenNoJobIsLost_andTheDelayedJobDueDuringTheFailoverRuns()
            throws Exception {
        cluster = KafkaCluster.start(3, FENCING);
        System.out.println("broker failover: brokers with " + FENCING);
        KafkaSettings settings = KafkaSettings.of(cluster.bootstrapServers())
                .withPrefix(prefix)
                .withGroup(group)
                .withPartitions(PARTITIONS)
                .withReplication(3, 2);
        worker = Worker.builder()
                .provider(KafkaProvider.connect(settings))
                .delays(RedisDelays.connect(redis.settings()))
                .queues("jobs")
                .concurrency(16)
                .shutdownGrace(Duration.ofSeconds(5))
                .build();
        Map<Integer, AtomicInteger> runs = new ConcurrentHashMap<>();
        Map<String, Long> firstDoneAt = new ConcurrentHashMap<>();
        worker.register("work", Job.class, (ctx, job) -> {
            runs.computeIfAbsent(job.n(), n -> new AtomicInteger()).incrementAndGet();
            firstDoneAt.putIfAbsent(ctx.jobId(), System.nanoTime());
            return Next.done();
        });
        worker.start();
        String topic = prefix + ".jobs";

        ExecutorService producers = Executors.newFixedThreadPool(PRODUCERS);
        ExecutorService enqueuing = Executors.newSingleThreadExecutor();
        try (KafkaProvider operatorSide = KafkaProvider.connect(settings)) {
            // All 5,000 are enqueued from the start; the kill lands while they are still being enqueued and run.
            Future<?> enqueued = enqueuing.submit(() -> {
                enqueue(producers, 0, JOBS);
                return null;
            });
            await().atMost(Duration.ofSeconds(300)).until(() -> runs.size() >= 1_000 || enqueued.isDone());

            assertReplicatedAsConfigured(topic);
            int victim = cluster.leaderOfMostPartitions(topic);
            Set<Integer> victimPartitions = partitionsLedBy(topic, victim);
            worker.schedule("work", new Job(LATE), Duration.ofSeconds(3), EnqueueOptions.onQueue("jobs"));
            long killedAt = System.nanoTime();
            cluster.kill(victim);
            System.out.printf(
                    "broker failover: killed node %d, leader of partitions %s of %d, after %d of %d jobs ran%n",
                    victim, victimPartitions, PARTITIONS, runs.size(), JOBS);
            printElection(topic, victim, killedAt);
            // The operator's backlog probe reads the lag from the surviving brokers.
            long backlog =
                    operatorSide.backlogProbe().measure(List.of("jobs"), group).outstanding();
            System.out.printf(
                    "broker failover: backlog read with node %d down: %d jobs outstanding%n", victim, backlog);
            enqueued.get(300, TimeUnit.SECONDS);

            await().atMost(Duration.ofSeconds(180)).until(() -> runs.size() == JOBS + 1);
            try (Admin admin = cluster.admin()) {
                TopicDescription after = admin.describeTopics(List.of(topic))
                        .allTopicNames()
                        .get(30, TimeUnit.SECONDS)
                        .get(topic);
                for (TopicPartitionInfo p : after.partitions()) {
                    assertTrue(
                            p.leader() != null && p.leader().id() != victim,
                            "partition " + p.partition() + " is led by a surviving broker: " + p);
                    assertFalse(
                            p.isr().stream().anyMatch(n -> n.id() == victim),
                            "the dead broker left the ISR of partition " + p.partition() + ": " + p);
                }
                Map<TopicPartition, Long> end = endOffsets(admin, topic);
                long records = end.values().stream().mapToLong(Long::longValue).sum();
                await().atMost(Duration.ofSeconds(30)).until(() -> committedEverywhere(admin, topic, end));
                assertEquals(
                        0,
                        operatorSide
                                .backlogProbe()
                                .measure(List.of("jobs"), group)
                                .outstanding(),
                        "with one broker still down, the backlog probe sees the group at the end of every partition");
                int duplicates =
                        runs.values().stream().mapToInt(c -> c.get() - 1).sum();
                Set<Integer> missing = new TreeSet<>();
                for (int n = 0; n < JOBS; n++) {
                    if (!runs.containsKey(n)) {
                        missing.add(n);
                    }
                }
                System.out.printf(
                        "broker failover: %d of %d jobs ran (+ the delayed one: %s), %d lost, %d duplicate runs,"
                                + " %d records in the topic, committed to the end of all %d partitions%n",
                        JOBS - missing.size(),
                        JOBS,
                        runs.containsKey(LATE) ? "ran" : "never ran",
                        missing.size(),
                        duplicates,
                        records,
                        PARTITIONS);
                printRecovery(topic, victimPartitions, killedAt, firstDoneAt);
                assertEquals(Set.of(), missing, "jobs lost");
                assertTrue(runs.containsKey(LATE), "the job due during the failover ran");
                assertTrue(records >= JOBS + 1, "the topic holds every job: " + records + " records");
            }
        } finally {
            enqueuing.shutdownNow();
            producers.shutdownNow();
        }
    }

    /** Enqueues jobs {@code from} … {@code to - 1} on several threads and waits for every ack (acks=all, min ISR 2). */
    private void enqueue(ExecutorService producers, int from, int to) throws Exception {
        List<Future<?>> sent = new ArrayList<>();
        AtomicInteger acked = new AtomicInteger();
        long started = System.nanoTime();
        for (int t = 0; t < PRODUCERS; t++) {
            int first = from + t;
            sent.add(producers.submit(() -> {
                for (int n = first; n < to; n += PRODUCERS) {
                    worker.enqueue("work", new Job(n), EnqueueOptions.onQueue("jobs"));
                    acked.incrementAndGet();
                }
                return null;
            }));
        }
        try {
            for (Future<?> f : sent) {
                f.get(300, TimeUnit.SECONDS); // an enqueue that failed throws here and fails the test
            }
        } finally {
            System.out.printf(
                    "broker failover: enqueued %d of jobs %d-%d in %.1f s%n",
                    acked.get(), from, to - 1, (System.nanoTime() - started) / 1e9);
        }
    }

    /** The runtime created the topic with 3 replicas per partition and min.insync.replicas 2 set on the topic itself. */
    private void assertReplicatedAsConfigured(String topic) throws Exception {
        try (Admin admin = cluster.admin()) {
            for (TopicPartitionInfo p : admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(topic)
                    .partitions()) {
                assertEquals(3, p.replicas().size(), "replicas of partition " + p.partition());
            }
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            ConfigEntry minIsr = admin.describeConfigs(List.of(resource))
                    .all()
                    .get(30, TimeUnit.SECONDS)
                    .get(resource)
                    .get("min.insync.replicas");
            assertEquals("2", minIsr.value());
            assertEquals(
                    ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG,
                    minIsr.source(),
                    "min.insync.replicas is the topic's own setting, not the broker default");
        }
    }

    private Set<Integer> partitionsLedBy(String topic, int node) throws Exception {
        try (Admin admin = cluster.admin()) {
            Set<Integer> led = new TreeSet<>();
            for (TopicPartitionInfo p : admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(topic)
                    .partitions()) {
                if (p.leader() != null && p.leader().id() == node) {
                    led.add(p.partition());
                }
            }
            return led;
        }
    }

    private static Map<TopicPartition, Long> endOffsets(Admin admin, String topic) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new java.util.HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        Map<TopicPartition, Long> out = new java.util.HashMap<>();
        admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).forEach((tp, info) -> out.put(tp, info.offset()));
        return out;
    }

    private boolean committedEverywhere(Admin admin, String topic, Map<TopicPartition, Long> end) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS);
        return end.entrySet().stream()
                .allMatch(e -> committed.get(e.getKey()) != null
                        && committed.get(e.getKey()).offset() == e.getValue());
    }

    /**
     * Where the failover's time goes, the brokers' half: seconds from the kill until the controller has fenced the
     * dead broker and moved every partition it led to a survivor (read every 200 ms), as the surviving brokers' own
     * metadata says. What follows until jobs flow again ({@link #printRecovery}) is the clients' half.
     */
    private void printElection(String topic, int victim, long killedAt) {
        try (Admin admin = cluster.admin()) {
            await().atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(200))
                    .ignoreExceptions()
                    .until(() -> admin
                            .describeTopics(List.of(topic))
                            .allTopicNames()
                            .get(5, TimeUnit.SECONDS)
                            .get(topic)
                            .partitions()
                            .stream()
                            .allMatch(p -> p.leader() != null && p.leader().id() != victim));
            System.out.printf(
                    "broker failover: new leaders elected %.1f s after the kill (the controller fences a broker"
                            + " broker.session.timeout.ms after its last heartbeat)%n",
                    (System.nanoTime() - killedAt) / 1e9);
        }
    }

    /**
     * Seconds from the kill until the first job on each partition the dead broker led completed: when its jobs
     * flowed again. Partitions of job ids come from the records themselves.
     */
    private void printRecovery(
            String topic, Set<Integer> victimPartitions, long killedAt, Map<String, Long> firstDoneAt)
            throws Exception {
        Map<Integer, Long> firstAfterKill = new java.util.TreeMap<>();
        try (var reader = new ClusterReader(cluster.bootstrapServers())) {
            reader.readAll(topic).forEach((partition, jobIds) -> {
                if (!victimPartitions.contains(partition)) {
                    return;
                }
                jobIds.stream()
                        .map(firstDoneAt::get)
                        .filter(t -> t != null && t > killedAt)
                        .min(Long::compare)
                        .ifPresent(t -> firstAfterKill.put(partition, t));
            });
        }
        StringBuilder line = new StringBuilder("broker failover: jobs flowing again on the dead leader's partitions");
        firstAfterKill.forEach((p, t) -> line.append(String.format(" p%d %.1f s,", p, (t - killedAt) / 1e9)));
        long worst = firstAfterKill.values().stream()
                .mapToLong(Long::longValue)
                .max()
                .orElse(killedAt);
        line.append(String.format(" all after %.1f s of the kill", (worst - killedAt) / 1e9));
        System.out.println(line);
    }
}
