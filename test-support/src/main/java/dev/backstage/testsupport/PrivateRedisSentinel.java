package dev.backstage.testsupport;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A Sentinel group of its own for one test class, on free loopback ports: a primary, 2 replicas and 3 sentinels
 * watching master {@code backstage} (quorum 2, down after 2 s, as {@code bin/lib.sh}'s shared group). For tests that
 * kill the primary without disturbing the shared group. {@link #kill9} a node, {@link #restart} it (the sentinels
 * turn an old primary into a replica), {@link #close()} stops all six and removes their directory.
 */
public final class PrivateRedisSentinel implements AutoCloseable {
    /** The master name the sentinels watch. */
    public static final String MASTER = "backstage";

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

    private final RedisProcesses processes = new RedisProcesses("private-redis-sentinel");
    private final List<Integer> dataPorts;
    private final List<Integer> sentinelPorts;

    private PrivateRedisSentinel(List<Integer> ports) {
        this.dataPorts = List.copyOf(ports.subList(0, 3));
        this.sentinelPorts = List.copyOf(ports.subList(3, 6));
    }

    /** Starts the primary, its replicas and the sentinels, and waits until the group is ready. */
    public static PrivateRedisSentinel start() {
        PrivateRedisSentinel group = new PrivateRedisSentinel(RedisProcesses.freePorts(6));
        try {
            int primary = group.dataPorts.get(0);
            for (int port : group.dataPorts) {
                group.processes.start(
                        port,
                        port == primary
                                ? List.of("save \"\"", "appendonly no")
                                : List.of("save \"\"", "appendonly no", "replicaof 127.0.0.1 " + primary),
                        false);
            }
            for (int port : group.sentinelPorts) {
                group.processes.start(
                        port,
                        List.of(
                                "sentinel monitor " + MASTER + " 127.0.0.1 " + primary + " 2",
                                "sentinel down-after-milliseconds " + MASTER + " 2000",
                                "sentinel failover-timeout " + MASTER + " 10000",
                                "sentinel parallel-syncs " + MASTER + " 2"),
                        true);
            }
            group.awaitHealthy();
            return group;
        } catch (RuntimeException e) {
            group.close();
            throw e;
        }
    }

    /** The primary and the replicas. */
    public List<Integer> dataPorts() {
        return dataPorts;
    }

    public List<Integer> sentinelPorts() {
        return sentinelPorts;
    }

    /** {@code redis-sentinel://s1,s2,s3#backstage}. */
    public String url() {
        return "redis-sentinel://"
                + sentinelPorts.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(",")) + "#" + MASTER;
    }

    /** The port of the primary the first sentinel names, or -1 when it names none. */
    public int primary() {
        List<String> addr = processes
                .cli(sentinelPorts.get(0), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER)
                .lines()
                .toList();
        return addr.size() == 2 ? Integer.parseInt(addr.get(1).strip()) : -1;
    }

    /** SIGKILL to the node on {@code port}; returns once the process is gone. */
    public void kill9(int port) {
        processes.kill9(port);
    }

    /** Starts the node on {@code port} again; the sentinels make an old primary a replica of the new one. */
    public void restart(int port) {
        processes.restart(port);
    }

    /** Waits until the named primary has 2 connected replicas and the first sentinel sees the 2 others. */
    public void awaitHealthy() {
        processes.await(
                "private Sentinel group (data " + dataPorts + ", sentinels " + sentinelPorts + ") ready",
                READY_TIMEOUT,
                () -> {
                    int primary = primary();
                    return primary > 0
                            && processes.cli(primary, "INFO", "replication").contains("connected_slaves:2")
                            && processes
                                    .cli(sentinelPorts.get(0), "SENTINEL", "MASTER", MASTER)
                                    .matches("(?s).*num-other-sentinels\\n2(\\n.*|$)");
                });
    }

    @Override
    public void close() {
        processes.close();
    }
}
