package dev.backstage.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.utils.Time;

/**
 * One node of {@link KafkaCluster}: a KRaft broker and controller in a JVM of its own, so a test can SIGKILL it
 * like a crashed machine. Formats its data directory on the first start and keeps it on a restart, prints
 * {@code NODE <id> STARTED} once the server is up, and runs until killed or until its standard input closes.
 *
 * <p>Arguments: node id (1…n), data directory, cluster id, broker ports and controller ports (comma-separated,
 * node i uses the i-th of each), and optionally {@code --until-stdin-closes} (what tests pass, so nodes never
 * outlive the test JVM); without it the node runs until it is killed ({@code bin/lib.sh} for people).
 */
public final class KafkaClusterNodeMain {
    private KafkaClusterNodeMain() {}

    public static void main(String[] args) throws IOException {
        if (args.length < 5) {
            System.err.println("usage: KafkaClusterNodeMain <node id> <data dir> <cluster id> <broker ports,>"
                    + " <controller ports,> [--until-stdin-closes] [broker.setting=value ...]");
            System.exit(2);
        }
        EmbeddedKafka.quietBrokerLogs();
        int nodeId = Integer.parseInt(args[0]);
        Path dir = Path.of(args[1]);
        String clusterId = args[2];
        List<Integer> brokerPorts = ports(args[3]);
        List<Integer> controllerPorts = ports(args[4]);
        Properties props = properties(nodeId, dir, brokerPorts, controllerPorts);
        boolean untilStdinCloses = false;
        for (int i = 5; i < args.length; i++) {
            if (args[i].equals("--until-stdin-closes")) {
                untilStdinCloses = true;
            } else if (args[i].contains("=")) {
                props.setProperty(
                        args[i].substring(0, args[i].indexOf('=')), args[i].substring(args[i].indexOf('=') + 1));
            } else {
                System.err.println("not a broker.setting=value: " + args[i]);
                System.exit(2);
            }
        }
        Files.createDirectories(dir);
        if (!Files.exists(dir.resolve("data").resolve("meta.properties"))) {
            EmbeddedKafka.format(dir, props, clusterId);
        }
        KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
        server.startup();
        System.out.println("NODE " + nodeId + " STARTED");
        System.out.flush();
        if (!untilStdinCloses) {
            server.awaitShutdown(); // until killed
            return;
        }
        while (System.in.read() >= 0) {
            // runs until stdin closes (the starting JVM exited) or a kill
        }
        server.shutdown();
        server.awaitShutdown();
        System.exit(0);
    }

    /**
     * Broker and controller in one process, all nodes voters; internal topics replicated 3 times with min ISR 2
     * (on fewer nodes: as many as there are), so the cluster keeps its offsets and transactions through one node's
     * loss, like a production cluster.
     */
    static Properties properties(int nodeId, Path dir, List<Integer> brokerPorts, List<Integer> controllerPorts) {
        int nodes = brokerPorts.size();
        String replicas = String.valueOf(Math.min(3, nodes));
        String minIsr = String.valueOf(Math.max(1, Math.min(2, nodes - 1)));
        List<String> voters = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            voters.add((i + 1) + "@127.0.0.1:" + controllerPorts.get(i));
        }
        int brokerPort = brokerPorts.get(nodeId - 1);
        int controllerPort = controllerPorts.get(nodeId - 1);
        Properties p = new Properties();
        p.putAll(Map.ofEntries(
                Map.entry("process.roles", "broker,controller"),
                Map.entry("node.id", String.valueOf(nodeId)),
                Map.entry("controller.quorum.voters", String.join(",", voters)),
                Map.entry(
                        "listeners",
                        "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort),
                Map.entry("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort),
                Map.entry("controller.listener.names", "CONTROLLER"),
                Map.entry("inter.broker.listener.name", "PLAINTEXT"),
                Map.entry("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"),
                Map.entry("log.dirs", dir.resolve("data").toString()),
                Map.entry("num.partitions", "1"),
                Map.entry("default.replication.factor", replicas),
                Map.entry("min.insync.replicas", minIsr),
                Map.entry("offsets.topic.replication.factor", replicas),
                // Few offsets partitions: creating 50 on first use costs seconds on a shared 2-core machine.
                Map.entry("offsets.topic.num.partitions", "3"),
                Map.entry("transaction.state.log.replication.factor", replicas),
                Map.entry("transaction.state.log.min.isr", minIsr),
                Map.entry("transaction.state.log.num.partitions", "3"),
                Map.entry("share.coordinator.state.topic.replication.factor", replicas),
                Map.entry("share.coordinator.state.topic.min.isr", minIsr),
                Map.entry("group.initial.rebalance.delay.ms", "0"),
                Map.entry("auto.create.topics.enable", "true"),
                Map.entry("log.segment.bytes", String.valueOf(64 * 1024 * 1024))));
        return p;
    }

    private static List<Integer> ports(String csv) {
        List<Integer> out = new ArrayList<>();
        for (String part : csv.split(",")) {
            out.add(Integer.parseInt(part.trim()));
        }
        return out;
    }
}
