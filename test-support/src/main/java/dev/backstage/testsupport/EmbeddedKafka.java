package dev.backstage.testsupport;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node Kafka 4.x broker (KRaft, broker and controller in one process) on loopback, for
 * tests. One per JVM, started on first use and shared: tests isolate themselves with unique topic and
 * group names (see {@link UniqueNames}).
 *
 * <p>Every replication factor and min ISR is 1, so internal topics (offsets, transactions, share state)
 * work on one node; {@code group.initial.rebalance.delay.ms=0} so a consumer joins at once. The log
 * directory is a temp dir deleted at JVM exit.
 *
 * <pre>{@code
 * String bootstrap = EmbeddedKafka.shared().bootstrapServers();
 * }</pre>
 */
public final class EmbeddedKafka {
    private static final Logger log = LoggerFactory.getLogger(EmbeddedKafka.class);
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    private final Path logDir;
    private final String bootstrapServers;
    private final KafkaRaftServer server;
    private final Map<String, Integer> extraPorts;
    private final java.util.concurrent.atomic.AtomicBoolean stopped = new java.util.concurrent.atomic.AtomicBoolean();

    private EmbeddedKafka(
            Path logDir, String bootstrapServers, KafkaRaftServer server, Map<String, Integer> extraPorts) {
        this.logDir = logDir;
        this.bootstrapServers = bootstrapServers;
        this.server = server;
        this.extraPorts = extraPorts;
    }

    /**
     * A broker of the caller's own (e.g. for one test class), closed with {@link #close()}: the plaintext listener of
     * {@link #bootstrapServers()} (also inter-broker) plus {@code listeners}, each a name and its security protocol,
     * bound on 127.0.0.1 and advertised as {@code localhost}; {@code extra} broker properties configure them.
     */
    public static EmbeddedKafka startWith(Map<String, String> listeners, Map<String, String> extra) {
        quietBrokerLogs();
        return retrying(() -> startOnce(listeners, extra));
    }

    /** The port of a listener given to {@link #startWith}. */
    public int port(String listener) {
        return extraPorts.get(listener);
    }

    /** Stops a broker from {@link #startWith} and deletes its data. */
    public void close() {
        stop();
    }

    /** The broker for this JVM, started on the first call (about 3 s). */
    public static EmbeddedKafka shared() {
        return Holder.INSTANCE;
    }

    /** {@code 127.0.0.1:<port>}, for {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    // The JVM-wide instance lives in a holder class so it starts lazily and exactly once, without locks.
    private static final class Holder {
        static final EmbeddedKafka INSTANCE = start();
    }

    private static EmbeddedKafka start() {
        quietBrokerLogs();
        return retrying(() -> startOnce(Map.of(), Map.of()));
    }

    private static EmbeddedKafka retrying(java.util.function.Supplier<EmbeddedKafka> starter) {
        RuntimeException last = null;
        // Ports are picked free and then bound by the broker, so another process on the machine can take one
        // in between: try again on fresh ports rather than fail the whole test run.
        for (int attempt = 1; attempt <= 3; attempt++) {
            try {
                return starter.get();
            } catch (RuntimeException e) {
                last = e;
                log.warn("embedded Kafka failed to start (attempt {} of 3): {}", attempt, e.toString());
            }
        }
        throw last;
    }

    private static EmbeddedKafka startOnce(Map<String, String> listeners, Map<String, String> extra) {
        long started = System.nanoTime();
        Path dir = createTempDir();
        int brokerPort = freePort();
        int controllerPort = freePort();
        Properties props = brokerProperties(dir, brokerPort, controllerPort);
        Map<String, Integer> ports = new java.util.LinkedHashMap<>();
        StringBuilder bound = new StringBuilder(props.getProperty("listeners"));
        StringBuilder advertised = new StringBuilder(props.getProperty("advertised.listeners"));
        StringBuilder protocols = new StringBuilder(props.getProperty("listener.security.protocol.map"));
        listeners.forEach((name, protocol) -> {
            int port = freePort();
            ports.put(name, port);
            bound.append(',').append(name).append("://127.0.0.1:").append(port);
            advertised.append(',').append(name).append("://localhost:").append(port);
            protocols.append(',').append(name).append(':').append(protocol);
        });
        props.setProperty("listeners", bound.toString());
        props.setProperty("advertised.listeners", advertised.toString());
        props.setProperty("listener.security.protocol.map", protocols.toString());
        props.putAll(extra);
        format(dir, props);
        KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
        String bootstrap = "127.0.0.1:" + brokerPort;
        EmbeddedKafka kafka = new EmbeddedKafka(dir, bootstrap, server, Map.copyOf(ports));
        try {
            server.startup();
            kafka.awaitReady();
        } catch (RuntimeException e) {
            kafka.stop();
            throw e;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(kafka::stop, "embedded-kafka-stop"));
        log.info(
                "embedded Kafka ready on {} in {} ms (log dir {})",
                bootstrap,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                dir);
        return kafka;
    }

    private static Properties brokerProperties(Path dir, int brokerPort, int controllerPort) {
        Properties p = new Properties();
        p.putAll(Map.ofEntries(
                Map.entry("process.roles", "broker,controller"),
                Map.entry("node.id", "1"),
                Map.entry("controller.quorum.voters", "1@127.0.0.1:" + controllerPort),
                Map.entry(
                        "listeners",
                        "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort),
                Map.entry("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort),
                Map.entry("controller.listener.names", "CONTROLLER"),
                Map.entry("inter.broker.listener.name", "PLAINTEXT"),
                Map.entry("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"),
                Map.entry("log.dirs", dir.resolve("data").toString()),
                Map.entry("num.partitions", "1"),
                Map.entry("default.replication.factor", "1"),
                Map.entry("min.insync.replicas", "1"),
                Map.entry("offsets.topic.replication.factor", "1"),
                // Few offsets partitions: creating 50 on first use costs seconds on a shared 2-core machine.
                Map.entry("offsets.topic.num.partitions", "3"),
                Map.entry("transaction.state.log.replication.factor", "1"),
                Map.entry("transaction.state.log.min.isr", "1"),
                Map.entry("transaction.state.log.num.partitions", "3"),
                Map.entry("share.coordinator.state.topic.replication.factor", "1"),
                Map.entry("share.coordinator.state.topic.min.isr", "1"),
                Map.entry("group.initial.rebalance.delay.ms", "0"),
                Map.entry("auto.create.topics.enable", "true"),
                Map.entry("log.segment.bytes", String.valueOf(64 * 1024 * 1024))));
        return p;
    }

    /** {@code kafka-storage format}: writes meta.properties and the bootstrap metadata into the log dir. */
    private static void format(Path dir, Properties props) {
        format(dir, props, Uuid.randomUuid().toString());
    }

    /** {@code kafka-storage format} with a given cluster id (every node of a cluster shares it). */
    static void format(Path dir, Properties props, String clusterId) {
        Path config = dir.resolve("server.properties");
        try (OutputStream out = Files.newOutputStream(config)) {
            props.store(out, "embedded Kafka for tests");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int rc = StorageTool.execute(
                new String[] {"format", "--cluster-id", clusterId, "--config", config.toString()},
                new PrintStream(captured, true, StandardCharsets.UTF_8));
        if (rc != 0) {
            throw new IllegalStateException(
                    "kafka-storage format failed (" + rc + "): " + captured.toString(StandardCharsets.UTF_8));
        }
    }

    private void awaitReady() {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            admin.describeCluster().nodes().get(READY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("embedded Kafka did not answer within " + READY_TIMEOUT, e);
        }
    }

    private void stop() {
        if (!stopped.compareAndSet(false, true)) {
            return;
        }
        try {
            server.shutdown();
            server.awaitShutdown();
        } catch (RuntimeException e) {
            log.warn("embedded Kafka did not shut down cleanly: {}", e.toString());
        } finally {
            deleteRecursively(logDir);
        }
    }

    /**
     * The broker logs every segment roll and group change at INFO; tests only want its warnings.
     * slf4j-simple (this module's tests, the benchmarks' broker JVM) reads per-logger levels from system properties
     * when each logger is created, so this works as long as it runs before the broker's classes log, and never
     * overrides an explicit setting. The modules on logback set the same levels in their logback-test.xml.
     */
    static void quietBrokerLogs() {
        for (String logger : new String[] {"kafka", "org.apache.kafka", "state.change.logger"}) {
            String key = "org.slf4j.simpleLogger.log." + logger;
            if (System.getProperty(key) == null) {
                System.setProperty(key, "warn");
            }
        }
    }

    private static Path createTempDir() {
        try {
            return Files.createTempDirectory("embedded-kafka-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            log.warn("could not delete embedded Kafka log dir {}: {}", dir, e.toString());
        }
    }
}
