package dev.backstage.runtime.redis;

import static org.awaitility.Awaitility.await;

import dev.backstage.runtime.api.Worker;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * Not a test: a live check against the released seed Go SDK, run by {@code tools/seed-broadcast-probe/run.sh}
 * (which builds the seed probe and starts a Redis of its own, since the seed listener is fixed to the stream
 * {@code backstage:broadcast}). A Java worker and a seed Go {@code BroadcastListener} both listen; the Java worker
 * broadcasts once and the seed {@code Client.Broadcast} once; each side must receive both. Exits 1 otherwise.
 *
 * <p>Arguments: {@code <redis port> <path of the seed-broadcast-probe binary>}.
 */
public final class SeedBroadcastInterop {
    private SeedBroadcastInterop() {}

    public static void main(String[] args) throws Exception {
        String port = args[0];
        String probe = args[1];
        String url = "redis://127.0.0.1:" + port;
        List<String> java = new CopyOnWriteArrayList<>();
        try (Worker worker = Worker.builder()
                        .provider(RedisProvider.connect(RedisSettings.of(url)))
                        .consumerId("java-worker")
                        .queues("default")
                        .build();
                RedisClient client = RedisClient.create(url);
                StatefulRedisConnection<String, String> redis = client.connect()) {
            worker.onBroadcast("cache.invalidate", Map.class, (ctx, p) -> {
                java.add("java received id=" + ctx.messageId() + " taskName=" + ctx.task() + " key=" + p.get("key")
                        + " enqueuedAt=" + ctx.sentAt().toEpochMilli());
            });
            worker.start();
            Process listener = new ProcessBuilder(probe, "listen", "127.0.0.1", port, "go-worker", "2")
                    .redirectErrorStream(true)
                    .start();
            BufferedReader out =
                    new BufferedReader(new InputStreamReader(listener.getInputStream(), StandardCharsets.UTF_8));
            System.out.println(out.readLine()); // "seed-go listening"
            await("the seed listener's group")
                    .atMost(Duration.ofSeconds(30))
                    .ignoreExceptions()
                    .until(() -> redis.sync().xinfoGroups("backstage:broadcast").stream()
                            .anyMatch(g -> g.toString().contains("broadcast-go-worker")));
            System.out.println("java sent " + worker.broadcast("cache.invalidate", Map.of("key", "from-java")));
            Process sender = new ProcessBuilder(
                            probe, "send", "127.0.0.1", port, "cache.invalidate", "{\"key\":\"from-go\"}")
                    .redirectErrorStream(true)
                    .inheritIO()
                    .start();
            if (!sender.waitFor(30, TimeUnit.SECONDS) || sender.exitValue() != 0) {
                throw new IllegalStateException("the seed sender failed");
            }
            String line;
            int seedGot = 0;
            while (seedGot < 2 && (line = out.readLine()) != null) {
                System.out.println(line);
                seedGot += line.startsWith("seed-go received") ? 1 : 0;
            }
            boolean seedDone = listener.waitFor(30, TimeUnit.SECONDS);
            await("both broadcasts on the Java side")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> java.size() >= 2);
            java.forEach(System.out::println);
            for (Object group : redis.sync().xinfoGroups("backstage:broadcast")) {
                System.out.println("XINFO GROUPS backstage:broadcast -> " + group);
            }
            boolean ok = seedDone
                    && seedGot == 2
                    && java.size() == 2
                    && java.stream().anyMatch(l -> l.contains("key=from-go"))
                    && java.stream().anyMatch(l -> l.contains("key=from-java"));
            System.out.println(ok ? "INTEROP OK: each side received both broadcasts" : "INTEROP FAILED");
            if (!ok) {
                System.exit(1);
            }
        }
    }
}
