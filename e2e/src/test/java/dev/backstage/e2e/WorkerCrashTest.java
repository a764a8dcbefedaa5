package dev.backstage.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.e2e.kubelet.LocalPod;
import dev.backstage.e2e.sandbox.SandboxCluster;
import dev.backstage.examples.orders.Order;
import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.redis.RedisProvider;
import dev.backstage.runtime.redis.RedisSettings;
import dev.backstage.testsupport.UniqueNames;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Chaos: a worker process is killed with SIGKILL mid-run; every job must still complete. The test asserts
 * that no job is lost and reports how many ran twice (delivery is at-least-once).
 */
@Tag("broker")
class WorkerCrashTest {
    private static final int ORDERS = 2000;

    @Test
    void givenAWorkerKilledHardMidRun_thenEveryJobStillCompletes() throws Exception {
        String prefix = UniqueNames.prefix("e2e-crash");
        Path work = Files.createDirectories(Path.of("target", "e2e-pods", prefix));
        try (SandboxCluster cluster = SandboxCluster.start("shop", work);
                RedisStreams streams = new RedisStreams()) {
            cluster.apply(manifests(prefix));
            System.out.println("[crash] waiting for 3 ready workers");
            await().atMost(Duration.ofSeconds(120)).until(() -> cluster.readyReplicas("orders") == 3);

            // The orders go in while the workers run, so there is work in flight to interrupt whenever the kill
            // comes (on a loaded machine the workers can keep pace with a producer that enqueues one at a time).
            AtomicInteger enqueued = new AtomicInteger();
            CompletableFuture<Void> producing = CompletableFuture.runAsync(() -> produce(prefix, enqueued));
            String stream = prefix + ":default";
            System.out.println("[crash] waiting until a fifth of the orders are in, then killing a worker");
            await().atMost(Duration.ofSeconds(120)).until(() -> enqueued.get() >= ORDERS / 5);
            // Kill a pod while it holds unacked work, so the crash really interrupts jobs.
            AtomicReference<LocalPod> holder = new AtomicReference<>();
            await("a pod holding unacked jobs")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(5))
                    .until(() -> {
                        for (LocalPod pod : cluster.kubelet().pods("orders")) {
                            if (streams.pendingOf(stream, "shop-workers", pod.name()) > 0) {
                                holder.set(pod);
                                return true;
                            }
                        }
                        return false;
                    });
            LocalPod victim = holder.get();
            long held = streams.pendingOf(stream, "shop-workers", victim.name());
            victim.kill();
            System.out.println("[crash] killed " + victim.name() + " with SIGKILL holding " + held
                    + " unacked jobs; waiting for every order to complete");

            producing.get(180, TimeUnit.SECONDS); // a failed enqueue fails the test here
            await().atMost(Duration.ofSeconds(180))
                    .until(() -> streams.receiptsPerOrder(stream).size() == ORDERS);
            await().atMost(Duration.ofSeconds(60)).until(() -> streams.pending(stream, "shop-workers") == 0);
            Map<String, Integer> receipts = streams.receiptsPerOrder(stream);
            long ranTwice = receipts.values().stream().filter(n -> n > 1).count();
            System.out.printf(
                    "[crash] %d orders, none lost; %d ran more than once (at-least-once); pods started %d,"
                            + " replaced %d%n",
                    ORDERS,
                    ranTwice,
                    cluster.kubelet().podsStarted(),
                    cluster.kubelet().podsReplaced());
            assertEquals(ORDERS, receipts.size(), "no order lost");
            assertTrue(cluster.kubelet().podsReplaced() >= 1, "the killed pod was replaced");
            await().atMost(Duration.ofSeconds(120)).until(() -> cluster.readyReplicas("orders") == 3);
        }
    }

    private static void produce(String prefix, AtomicInteger enqueued) {
        try (Worker producer = Worker.builder()
                .provider(
                        RedisProvider.connect(RedisSettings.of(RedisStreams.URL).withPrefix(prefix)))
                .build()) {
            for (int i = 0; i < ORDERS; i++) {
                producer.enqueue("processOrder", new Order("o-" + i, 100 + i, "visa"), EnqueueOptions.defaults());
                enqueued.incrementAndGet();
            }
        }
    }

    private static String manifests(String prefix) {
        return """
                apiVersion: v1
                kind: Secret
                metadata: {name: orders-redis}
                stringData: {url: "%s"}
                ---
                apiVersion: backstage.dev/v1alpha1
                kind: BackstageTopology
                metadata: {name: orders}
                spec:
                  provider: redis
                  connection: {secretName: orders-redis, key: url}
                  keyPrefix: %s
                  consumerGroup: shop-workers
                  queues: [{name: default}]
                ---
                apiVersion: backstage.dev/v1alpha1
                kind: BackstageWorkerPool
                metadata: {name: orders}
                spec:
                  image: backstage-sample-tasks:0.1.0
                  topologyRef: {name: orders}
                  queues: [default]
                  replicas: 3
                  concurrency: 8
                  maxRetries: 5
                  shutdownGracePeriod: 5s
                  env: [{name: BACKSTAGE_SAMPLE_WORK_MS, value: "40"}]
                """.formatted(RedisStreams.URL, prefix);
    }
}
