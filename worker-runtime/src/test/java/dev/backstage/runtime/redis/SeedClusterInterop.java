package dev.backstage.runtime.redis;

import static org.awaitility.Awaitility.await;

import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Not a test: a live check that the released seed Go SDK and the Java runtime share a Redis Cluster through a key
 * prefix in braces, run by {@code tools/seed-cluster-probe/run.sh} on the cluster of {@code bin/lib.sh}
 * (127.0.0.1:7000-7005). The seed's client is single-node, so the probe finds the primary that owns the slot of
 * {@code {backstage}} and the seed talks to it alone; the Java side runs in cluster mode with the prefix
 * {@code {backstage}} (through {@link ProviderSettings}, so the prefix rule of provider redis is what accepts it).
 *
 * <ol>
 *   <li>seed → Java: the seed enqueues jobs (and delayed jobs, which the Java promoter moves) on one queue; a Java
 *       worker runs them;
 *   <li>Java → seed: Java enqueues jobs (and delayed jobs, which the seed's promoter moves) on another queue; a seed
 *       worker runs them.
 * </ol>
 *
 * Each direction is checked on the broker: the stream's length, nothing pending in group {@code backstage-workers},
 * no delayed job of the queue left in {@code {backstage}:scheduled}. Prints one summary line; exits 1 on a mismatch.
 *
 * <p>Arguments: {@code <path of the seed-cluster-probe binary> <jobs> <delayed jobs>}.
 */
public final class SeedClusterInterop {
    private static final String URL = "redis+cluster://127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002";
    private static final String PREFIX = "{backstage}";
    private static final String GROUP = "backstage-workers";
    private static final Duration DEADLINE = Duration.ofSeconds(90);

    private SeedClusterInterop() {}

    /** A payload of the probe: its number. */
    public record Job(int n) {}

    public static void main(String[] args) throws Exception {
        String probe = args[0];
        int jobs = Integer.parseInt(args[1]);
        int delayed = Integer.parseInt(args[2]);
        String run = UUID.randomUUID().toString().substring(0, 8);
        String toJava = "seed-to-java-" + run;
        String toSeed = "java-to-seed-" + run;
        RedisClusterClient client = RedisClusterClient.create(RedisURI.create("127.0.0.1", 7000));
        try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
            RedisAdvancedClusterCommands<String, String> redis = connection.sync();
            String owner = probe(probe, "owner", "127.0.0.1:7000", PREFIX).strip();
            System.out.println("slot " + redis.clusterKeyslot(PREFIX) + " of " + PREFIX + " is served by " + owner);
            try {
                String first = seedToJava(redis, probe, owner, toJava, jobs, delayed);
                String second = javaToSeed(redis, probe, owner, toSeed, jobs, delayed);
                System.out.println("SEED CLUSTER INTEROP OK: " + first + "; " + second);
            } catch (IllegalStateException e) {
                System.out.println("SEED CLUSTER INTEROP FAILED: " + e.getMessage());
                System.exit(1);
            } finally {
                for (String queue : List.of(toJava, toSeed)) {
                    redis.del(PREFIX + ":" + queue, PREFIX + ":" + queue + ":dead-letter");
                }
            }
        } finally {
            client.shutdown();
        }
    }

    private static String seedToJava(
            RedisAdvancedClusterCommands<String, String> redis,
            String probe,
            String owner,
            String queue,
            int jobs,
            int delayed)
            throws Exception {
        Map<Integer, Integer> ran = new ConcurrentHashMap<>();
        try (Worker worker = Worker.builder()
                .provider(provider())
                .consumerId("java-worker")
                .queues(queue)
                .build()) {
            worker.register("probe.fromSeed", Job.class, (ctx, job) -> {
                ran.merge(job.n(), 1, Integer::sum);
                return null;
            });
            worker.start();
            String stream = PREFIX + ":" + queue;
            await("the Java worker's group on " + stream)
                    .atMost(DEADLINE)
                    .ignoreExceptions()
                    .until(() -> redis.xinfoGroups(stream).toString().contains(GROUP));
            System.out.println(probe(probe, "enqueue", owner, PREFIX, queue, "" + jobs, "" + delayed)
                    .strip());
            await("the Java worker runs every seed job")
                    .atMost(DEADLINE)
                    .until(() -> ran.size() >= jobs + delayed && pending(redis, stream) == 0);
            return check(redis, "seed -> Java", stream, jobs + delayed, ran);
        }
    }

    private static String javaToSeed(
            RedisAdvancedClusterCommands<String, String> redis,
            String probe,
            String owner,
            String queue,
            int jobs,
            int delayed)
            throws Exception {
        String stream = PREFIX + ":" + queue;
        try (Worker producer =
                Worker.builder().provider(provider()).queues(queue).build()) {
            for (int i = 0; i < jobs + delayed; i++) {
                EnqueueOptions options = EnqueueOptions.onQueue(queue);
                producer.enqueue(
                        "probe.fromJava", new Job(i), i < jobs ? options : options.delay(Duration.ofSeconds(1)));
            }
            System.out.println("java enqueued " + jobs + " jobs and " + delayed + " delayed on " + stream);
        }
        System.out.println(
                probe(probe, "consume", owner, PREFIX, queue, "" + (jobs + delayed), "" + DEADLINE.toSeconds())
                        .strip());
        return check(redis, "Java -> seed", stream, jobs + delayed, null);
    }

    /** The broker's own state after one direction: stream length, nothing pending, nothing left delayed. */
    private static String check(
            RedisAdvancedClusterCommands<String, String> redis,
            String direction,
            String stream,
            int expected,
            Map<Integer, Integer> ran) {
        long length = redis.xlen(stream);
        long pending = pending(redis, stream);
        long delayedLeft = redis.zrange(PREFIX + ":scheduled", 0, -1).stream()
                .filter(m -> m.contains("\"" + stream + "\""))
                .count();
        long duplicates =
                ran == null ? 0 : ran.values().stream().mapToInt(c -> c - 1).sum();
        String line = direction + ": " + expected + " enqueued, XLEN " + length + ", XPENDING " + pending
                + ", delayed left " + delayedLeft
                + (ran == null ? "" : ", ran " + ran.size() + " (" + duplicates + " twice)");
        System.out.println(line);
        if (length != expected || pending != 0 || delayedLeft != 0 || (ran != null && ran.size() != expected)) {
            throw new IllegalStateException(line);
        }
        return line;
    }

    /** Cluster mode, prefix {@code {backstage}}: what a runtime config or the CLI would give. */
    private static Provider provider() {
        return Providers.create(new ProviderSettings("redis", URL, PREFIX, GROUP, null));
    }

    private static long pending(RedisAdvancedClusterCommands<String, String> redis, String stream) {
        return redis.xpending(stream, GROUP).getCount();
    }

    /** Runs the seed probe and returns its output; fails unless it exits 0 within the deadline. */
    private static String probe(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!process.waitFor(DEADLINE.toSeconds() + 30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " did not finish");
        }
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", List.of(command).subList(1, command.length)) + ": " + out);
        }
        return out;
    }
}
