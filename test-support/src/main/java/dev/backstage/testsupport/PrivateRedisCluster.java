package dev.backstage.testsupport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A 6-node Redis Cluster of its own for one test class (3 primaries, 3 replicas, {@code cluster-node-timeout 2000}
 * as {@code bin/lib.sh}'s shared one), on free loopback ports, for tests that kill a node: killing a node of the
 * shared cluster on 7000-7005 would disturb every other test using it. {@link #kill9} a node, {@link #restart} it
 * (it rejoins as a replica), {@link #close()} stops all six and removes their directory.
 */
public final class PrivateRedisCluster implements AutoCloseable {
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

    private final RedisProcesses processes = new RedisProcesses("private-redis-cluster");
    private final List<Integer> ports;

    private PrivateRedisCluster(List<Integer> ports) {
        this.ports = List.copyOf(ports);
    }

    /** Starts six nodes, creates the cluster with {@code redis-cli --cluster create} and waits until it is ok. */
    public static PrivateRedisCluster start() {
        PrivateRedisCluster cluster = new PrivateRedisCluster(RedisProcesses.freePorts(6));
        try {
            for (int port : cluster.ports) {
                cluster.processes.start(
                        port,
                        List.of(
                                "cluster-enabled yes",
                                "cluster-config-file nodes.conf",
                                "cluster-node-timeout 2000",
                                "cluster-replica-validity-factor 0",
                                "save \"\"",
                                "appendonly no"),
                        false);
            }
            List<String> create = new ArrayList<>(List.of("--cluster", "create"));
            cluster.ports.forEach(p -> create.add("127.0.0.1:" + p));
            create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
            cluster.processes.cli(cluster.ports.get(0), create.toArray(String[]::new));
            cluster.awaitHealthy();
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    public List<Integer> ports() {
        return ports;
    }

    /** {@code redis+cluster://} with three of the nodes as seeds. */
    public String url() {
        return "redis+cluster://"
                + ports.subList(0, 3).stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    }

    /** SIGKILL to the node on {@code port}; returns once the process is gone. */
    public void kill9(int port) {
        processes.kill9(port);
    }

    /** Starts the node on {@code port} again from its {@code nodes.conf}; it rejoins (a failed-over primary as a replica). */
    public void restart(int port) {
        processes.restart(port);
    }

    /**
     * Waits until every node answers, {@code cluster_state:ok} and, as each node sees it, 3 primaries and 3 replicas
     * are connected and not failing (a restarted node needs a moment to learn it is a replica and to sync).
     */
    public void awaitHealthy() {
        processes.await(
                "private Redis Cluster on " + ports + " ok with 3 primaries and 3 replicas",
                READY_TIMEOUT,
                () -> ports.stream().allMatch(this::healthyAsSeenFrom));
    }

    private boolean healthyAsSeenFrom(int port) {
        if (!processes.cli(port, "CLUSTER", "INFO").contains("cluster_state:ok")) {
            return false;
        }
        List<String[]> nodes = processes
                .cli(port, "CLUSTER", "NODES")
                .lines()
                .map(l -> l.split(" "))
                .toList();
        long primaries = nodes.stream()
                .filter(n ->
                        n.length > 7 && !n[2].contains("fail") && n[2].contains("master") && n[7].equals("connected"))
                .count();
        long replicas = nodes.stream()
                .filter(n ->
                        n.length > 7 && !n[2].contains("fail") && n[2].contains("slave") && n[7].equals("connected"))
                .count();
        return primaries == 3 && replicas == 3;
    }

    @Override
    public void close() {
        processes.close();
    }
}
