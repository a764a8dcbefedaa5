package dev.backstage.testsupport;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real multi-broker KRaft Kafka cluster on loopback for tests: every node ({@link KafkaClusterNodeMain}) a broker
 * and a controller voter in a JVM of its own, with its own broker and controller port and its own data directory
 * under one temp dir (deleted on {@link #close()}). Because nodes are processes, a test can {@link #kill} one
 * (SIGKILL, like a machine that dies) and {@link #restart} it on the same data.
 *
 * <p>Internal topics are replicated 3 times with min ISR 2, as in production; topics a test creates get the
 * replication it asks for. {@link #shared()} is one 3-node cluster per JVM for tests that only need the shape; a
 * test that kills nodes starts its own with {@link #start(int)}.
 *
 * <pre>{@code
 * try (KafkaCluster cluster = KafkaCluster.start(3)) {
 *     String bootstrap = cluster.bootstrapServers();
 *     cluster.kill(cluster.leaderOfMostPartitions("orders"));
 * }
 * }</pre>
 *
 * <p>Kept as one class: starting, killing and restarting nodes and the questions tests ask of the cluster (its leaders,
 * its brokers) act on one set of node processes with their ports and data directories.
 */
public final class KafkaCluster implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(KafkaCluster.class);
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(300);

    private final Path dir;
    private final String clusterId = Uuid.randomUuid().toString();
    private final List<Integer> brokerPorts;
    private final List<Integer> controllerPorts;
    private final Map<String, String> brokerSettings;
    private final Map<Integer, Process> nodes = new TreeMap<>();
    private boolean closed;

    private KafkaCluster(
            Path dir, List<Integer> brokerPorts, List<Integer> controllerPorts, Map<String, String> brokerSettings) {
        this.dir = dir;
        this.brokerSettings = new TreeMap<>(brokerSettings);
        this.brokerPorts = List.copyOf(brokerPorts);
        this.controllerPorts = List.copyOf(controllerPorts);
    }

    /** The 3-node cluster of this JVM, started on first use (tens of seconds on a loaded 2-core machine). */
    public static KafkaCluster shared() {
        return Holder.INSTANCE;
    }

    private static final class Holder {
        static final KafkaCluster INSTANCE = start(3);
    }

    /** A cluster of {@code size} nodes on free loopback ports, ready (every broker registered) when this returns. */
    public static KafkaCluster start(int size) {
        return start(size, Map.of());
    }

    /**
     * As {@link #start(int)}, every node with these broker settings on top of its own (e.g.
     * {@code broker.session.timeout.ms}); they survive {@link #restart}.
     */
    public static KafkaCluster start(int size, Map<String, String> brokerSettings) {
        List<Integer> broker = new ArrayList<>();
        List<Integer> controller = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            broker.add(EmbeddedKafka.freePort());
            controller.add(EmbeddedKafka.freePort());
        }
        KafkaCluster cluster = new KafkaCluster(createTempDir(), broker, controller, brokerSettings);
        Runtime.getRuntime().addShutdownHook(new Thread(cluster::close, "kafka-cluster-stop"));
        long started = System.nanoTime();
        try {
            // All at once: a node's startup waits for a quorum of controller voters, i.e. for the others.
            List<CountDownLatch> starting = new ArrayList<>();
            for (int id = 1; id <= size; id++) {
                starting.add(cluster.launch(id));
            }
            for (int id = 1; id <= size; id++) {
                cluster.awaitStarted(id, starting.get(id - 1));
            }
            cluster.awaitBrokers(size);
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
        log.info(
                "Kafka cluster of {} nodes ready on {} in {} ms (data in {})",
                size,
                cluster.bootstrapServers(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                cluster.dir);
        return cluster;
    }

    /** Every node's {@code 127.0.0.1:<port>}, comma-separated, for {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return brokerPorts.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    }

    /** Node ids, 1 … size. */
    public List<Integer> nodeIds() {
        List<Integer> ids = new ArrayList<>();
        for (int i = 1; i <= brokerPorts.size(); i++) {
            ids.add(i);
        }
        return ids;
    }

    /** SIGKILLs node {@code id} and waits until its process is gone: no clean shutdown, no leadership hand-over. */
    public synchronized void kill(int id) {
        Process process = nodes.remove(id);
        if (process == null) {
            throw new IllegalStateException("node " + id + " is not running");
        }
        process.destroyForcibly();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("node " + id + " did not exit within 30 s of SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while killing node " + id, e);
        }
    }

    /** Starts a killed node again on its own data and ports; returns once its process says it started. */
    public synchronized void restart(int id) {
        if (nodes.containsKey(id)) {
            throw new IllegalStateException("node " + id + " is running");
        }
        awaitStarted(id, launch(id));
    }

    /**
     * The node leading the most partitions of {@code topic}, as the cluster's metadata says now (ties: the lowest
     * id).
     */
    public int leaderOfMostPartitions(String topic) {
        try (Admin admin = admin()) {
            TopicDescription d = admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(topic);
            Map<Integer, Integer> led = new TreeMap<>();
            for (TopicPartitionInfo p : d.partitions()) {
                if (p.leader() != null) {
                    led.merge(p.leader().id(), 1, Integer::sum);
                }
            }
            return led.entrySet().stream()
                    .max(Map.Entry.<Integer, Integer>comparingByValue()
                            .thenComparing(Map.Entry.comparingByKey(java.util.Comparator.reverseOrder())))
                    .orElseThrow(() -> new IllegalStateException("no partition of " + topic + " has a leader"))
                    .getKey();
        } catch (Exception e) {
            throw new IllegalStateException("could not describe " + topic + ": " + e, e);
        }
    }

    /** An admin client on this cluster (the caller closes it). */
    public Admin admin() {
        return Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                10_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                30_000));
    }

    private CountDownLatch launch(int id) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(
                java,
                "-Xms128m",
                "-Xmx512m",
                // Serial GC and C1 only: a node's JVM starts in a fraction of the CPU, which matters with three of them
                // starting at once on a shared 2-core machine; throughput stays far above what the tests need.
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                KafkaClusterNodeMain.class.getName(),
                String.valueOf(id),
                dir.resolve("node-" + id).toString(),
                clusterId,
                join(brokerPorts),
                join(controllerPorts),
                "--until-stdin-closes"));
        brokerSettings.forEach((key, value) -> command.add(key + "=" + value));
        CountDownLatch started = new CountDownLatch(1);
        Process process;
        try {
            Files.createDirectories(dir);
            process = new ProcessBuilder(command)
                    .redirectError(ProcessBuilder.Redirect.appendTo(new File(dir.toFile(), "node-" + id + ".log")))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start Kafka node " + id, e);
        }
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader out = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = out.readLine()) != null) {
                            if (line.startsWith("NODE " + id + " STARTED")) {
                                started.countDown();
                            }
                        }
                    } catch (IOException e) {
                        // The node was killed: its stdout closed.
                    }
                },
                "kafka-node-" + id + "-stdout");
        reader.setDaemon(true);
        reader.start();
        nodes.put(id, process);
        return started;
    }

    private void awaitStarted(int id, CountDownLatch started) {
        Process process = nodes.get(id);
        try {
            long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
            while (!started.await(200, TimeUnit.MILLISECONDS)) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("Kafka node " + id + " did not start (exit "
                            + (process.isAlive() ? "none, still running" : process.exitValue()) + "); see "
                            + dir.resolve("node-" + id + ".log"));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting Kafka node " + id, e);
        }
    }

    /** Waits until the cluster's metadata lists {@code count} live brokers. */
    public void awaitBrokers(int count) {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        String last = "no answer";
        try (Admin admin = admin()) {
            while (System.nanoTime() < deadline) {
                try {
                    java.util.Collection<Node> live =
                            admin.describeCluster().nodes().get(10, TimeUnit.SECONDS);
                    if (live.size() == count) {
                        return;
                    }
                    last = live.size() + " brokers";
                } catch (Exception e) {
                    last = e.toString();
                }
                Thread.sleep(200); // polling interval, not synchronisation: the loop re-checks the condition
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new IllegalStateException("the Kafka cluster did not show " + count + " brokers within " + READY_TIMEOUT
                + " (" + last + "); see the node logs in " + dir);
    }

    /** Stops every node (SIGKILL: their data is deleted anyway) and deletes the data. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Process process : nodes.values()) {
            process.destroyForcibly();
        }
        for (Process process : nodes.values()) {
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        nodes.clear();
        EmbeddedKafka.deleteRecursively(dir);
    }

    private static String join(List<Integer> ports) {
        return ports.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    private static Path createTempDir() {
        try {
            return Files.createTempDirectory("kafka-cluster-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
