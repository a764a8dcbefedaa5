package dev.backstage.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.e2e.cluster.LocalCluster;
import dev.backstage.e2e.sandbox.RealSandbox;
import dev.backstage.examples.orders.Order;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.core.CapabilitySet;
import dev.backstage.runtime.core.JobProducer;
import dev.backstage.runtime.core.PayloadCodec;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Day 2 on the real local cluster (kube-apiserver, kube-controller-manager's Deployment controller, the operator
 * installed with helm, worker pods run by the node agent, real Redis): while 3,000 orders flow, the pool's image
 * tag and env change. The Deployment rolls out with maxUnavailable 0; every old worker drains within its grace.
 * Asserted on the broker's and the API server's own state: every order sent its receipt (0 lost; duplicates
 * counted and printed), nothing stays pending, every old pod's own log says it stopped drained (no handler cut off),
 * every pod now runs the new template, and the pool's status.updatedReplicas went below replicas and back.
 */
@Tag("cluster")
@Tag("broker")
@Tag("slow")
class RollingUpdateTest {
    private static final String REDIS = RedisStreams.URL;
    private static final int ORDERS = 3000;
    private static final int REPLICAS = 3;
    /** Orders per second: slower than the pool drains (3 x 8 handlers at 200 ms), so the flow spans the rollout. */
    private static final int RATE = 20;
    /**
     * The workers' JVM settings for a shared 2-core machine (C1 only, serial GC: less CPU to start), as a user sets
     * them for small pods; without them a loaded machine saw worker JVMs miss the 60 s startup probe.
     */
    private static final String JVM_ENV =
            "{\"name\": \"JAVA_TOOL_OPTIONS\", \"value\": \"-XX:TieredStopAtLevel=1 -XX:+UseSerialGC\"}";

    @Test
    void givenJobsFlowing_whenThePoolsImageAndEnvChange_thenEveryJobRunsAndNoHandlerIsCutOff() throws Exception {
        LocalCluster cluster = LocalCluster.shared();
        KubernetesClient client = cluster.client();
        RealSandbox.installChart(cluster);
        String ns = UniqueNames.prefix("e2e-rollout");
        String prefix = UniqueNames.prefix("rollout");
        cluster.kubectl("create", "namespace", ns).orThrow();
        AtomicInteger enqueued = new AtomicInteger();
        Thread producer = producer(prefix, enqueued);
        try (RedisStreams streams = new RedisStreams()) {
            try {
                cluster.kubectlWithInput(manifests(prefix), "apply", "-n", ns, "-f", "-")
                        .orThrow();
                await("3 ready workers").atMost(Duration.ofMinutes(6)).until(() -> ready(pool(client, ns), REPLICAS));
                Set<String> oldPods = podNames(client, ns);
                log("old pods " + oldPods);

                Map<String, Long> heldAtSigterm = new ConcurrentHashMap<>();
                AtomicInteger lowestUpdated = new AtomicInteger(Integer.MAX_VALUE);
                String stream = prefix + ":default";
                try (Watch ignored = watchTerminations(client, ns, streams, stream, heldAtSigterm)) {
                    producer.start();
                    await("a tenth of the orders handled")
                            .atMost(Duration.ofMinutes(2))
                            .until(() -> streams.receiptsPerOrder(stream).size() >= ORDERS / 10);
                    log("patching the pool's image tag and env with " + enqueued.get() + " orders enqueued");
                    cluster.kubectl("patch", "bwp", "orders", "-n", ns, "--type", "merge", "-p", """
                            {"spec": {"image": "backstage-sample-tasks:0.1.1",
                              "env": [{"name": "BACKSTAGE_SAMPLE_WORK_MS", "value": "150"},
                                      {"name": "ROLLOUT", "value": "2"}, %s]}}""".formatted(JVM_ENV))
                            .orThrow();
                    await("the rollout to finish")
                            .atMost(Duration.ofMinutes(5))
                            .pollInterval(Duration.ofMillis(200))
                            .until(() -> {
                                BackstageWorkerPoolStatus s = pool(client, ns).getStatus();
                                if (s != null && s.getUpdatedReplicas() != null) {
                                    lowestUpdated.accumulateAndGet(s.getUpdatedReplicas(), Math::min);
                                }
                                return rolledOut(client, ns)
                                        && s != null
                                        && s.getUpdatedReplicas() != null
                                        && s.getUpdatedReplicas() == REPLICAS
                                        && ready(pool(client, ns), REPLICAS)
                                        && podNames(client, ns).stream().noneMatch(oldPods::contains);
                            });
                    log("rolled out with " + enqueued.get() + " of " + ORDERS + " orders enqueued; lowest"
                            + " status.updatedReplicas seen " + lowestUpdated.get());
                    producer.join(TimeUnit.MINUTES.toMillis(3));
                    assertEquals(ORDERS, enqueued.get(), "the producer enqueued every order");
                    await("every receipt")
                            .atMost(Duration.ofMinutes(3))
                            .pollInterval(Duration.ofSeconds(1))
                            .until(() -> streams.receiptsPerOrder(stream).size() == ORDERS);
                    await("nothing pending")
                            .atMost(Duration.ofMinutes(1))
                            .until(() -> streams.pending(stream, "shop-workers") == 0);
                }
                Map<String, Integer> receipts = streams.receiptsPerOrder(stream);
                long duplicates =
                        receipts.values().stream().mapToLong(n -> n - 1).sum();
                log(ORDERS + " orders, " + receipts.size() + " with a receipt (0 lost), " + duplicates
                        + " duplicate receipts; jobs held by each old pod at SIGTERM " + heldAtSigterm);
                assertEquals(ORDERS, receipts.size(), "every order ran at least once");
                assertTrue(
                        lowestUpdated.get() < REPLICAS,
                        "status.updatedReplicas told the rollout's progress: lowest " + lowestUpdated.get());
                assertTrue(
                        heldAtSigterm.keySet().containsAll(oldPods),
                        "every old pod was seen terminating: " + heldAtSigterm);
                assertTrue(
                        heldAtSigterm.values().stream().anyMatch(n -> n > 0),
                        "the rollout stopped pods with jobs in flight: " + heldAtSigterm);
                for (String pod : oldPods) {
                    String podLog =
                            Files.readString(cluster.node().podDir(ns, pod).resolve("pod.log"));
                    assertTrue(podLog.contains("(drained: true)"), pod + " stopped without draining:\n" + tail(podLog));
                    assertTrue(!podLog.contains("shutdown grace of"), pod + " cut handlers off:\n" + tail(podLog));
                }
                Deployment d = client.apps()
                        .deployments()
                        .inNamespace(ns)
                        .withName("orders")
                        .get();
                assertEquals(
                        0,
                        d.getSpec()
                                .getStrategy()
                                .getRollingUpdate()
                                .getMaxUnavailable()
                                .getIntVal());
                assertEquals(
                        REPLICAS,
                        client.pods().inNamespace(ns).list().getItems().stream()
                                .filter(p -> p.getSpec()
                                        .getContainers()
                                        .get(0)
                                        .getImage()
                                        .equals("backstage-sample-tasks:0.1.1"))
                                .count(),
                        "every pod runs the new image");
            } finally {
                producer.interrupt(); // a failed run enqueues nothing after its keys are deleted
                producer.join(TimeUnit.SECONDS.toMillis(30));
                cluster.kubectl("delete", "namespace", ns, "--wait=true", "--timeout=120s");
                List<String> keys = streams.redis().keys(prefix + ":*");
                if (!keys.isEmpty()) {
                    streams.redis().del(keys.toArray(String[]::new));
                }
            }
        }
    }

    /** Enqueues {@link #ORDERS} orders at {@link #RATE} per second (load, not synchronisation). */
    private static Thread producer(String prefix, AtomicInteger enqueued) {
        Thread thread = new Thread(
                () -> {
                    try (Provider p =
                            Providers.create(new ProviderSettings("redis", REDIS, prefix, "shop-workers", null))) {
                        JobProducer producer =
                                new JobProducer(new CapabilitySet(p, null, null, null), PayloadCodec.defaults());
                        long start = System.nanoTime();
                        for (int i = 0; i < ORDERS && !Thread.currentThread().isInterrupted(); i++) {
                            long due = start + TimeUnit.SECONDS.toNanos(1) * i / RATE;
                            LockSupport.parkNanos(due - System.nanoTime());
                            producer.enqueue("processOrder", new Order("o-" + i, i, "visa"), EnqueueOptions.defaults());
                            enqueued.incrementAndGet();
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                "rollout-producer");
        thread.setDaemon(true);
        return thread;
    }

    /** On each pod's deletion (the kubelet's SIGTERM follows), records how many jobs its consumer holds unacked. */
    private static Watch watchTerminations(
            KubernetesClient client, String ns, RedisStreams streams, String stream, Map<String, Long> heldAtSigterm) {
        AtomicBoolean closed = new AtomicBoolean();
        return client.pods().inNamespace(ns).watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, Pod pod) {
                String name = pod.getMetadata().getName();
                if (pod.getMetadata().getDeletionTimestamp() != null
                        && !heldAtSigterm.containsKey(name)
                        && !closed.get()) {
                    heldAtSigterm.put(name, streams.pendingOf(stream, "shop-workers", name));
                }
            }

            @Override
            public void onClose(WatcherException cause) {
                closed.set(true);
            }
        });
    }

    private static BackstageWorkerPool pool(KubernetesClient client, String ns) {
        return client.resources(BackstageWorkerPool.class)
                .inNamespace(ns)
                .withName("orders")
                .get();
    }

    private static boolean ready(BackstageWorkerPool pool, int replicas) {
        return pool != null
                && pool.getStatus() != null
                && pool.getStatus().getReadyReplicas() != null
                && pool.getStatus().getReadyReplicas() == replicas;
    }

    /** The Deployment controller's own verdict: observed the new generation, every replica updated and available. */
    private static boolean rolledOut(KubernetesClient client, String ns) {
        Deployment d =
                client.apps().deployments().inNamespace(ns).withName("orders").get();
        var s = d.getStatus();
        return s != null
                && s.getObservedGeneration() != null
                && s.getObservedGeneration() >= d.getMetadata().getGeneration()
                && s.getUpdatedReplicas() != null
                && s.getUpdatedReplicas() == REPLICAS
                && s.getAvailableReplicas() != null
                && s.getAvailableReplicas() == REPLICAS
                && (s.getReplicas() == null || s.getReplicas() == REPLICAS);
    }

    private static Set<String> podNames(KubernetesClient client, String ns) {
        return client.pods().inNamespace(ns).list().getItems().stream()
                .map(p -> p.getMetadata().getName())
                .collect(Collectors.toSet());
    }

    private static String tail(String text) {
        List<String> lines = text.lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    }

    private static void log(String message) {
        System.out.println("[rollout] " + message);
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
                  replicas: %d
                  concurrency: 8
                  maxDeliveries: 5
                  hardTimeout: 10s
                  shutdownGracePeriod: 20s
                  resources: {limits: {cpu: "1", memory: 512Mi}}
                  env: [{name: BACKSTAGE_SAMPLE_WORK_MS, value: "200"}, %s]
                """.formatted(REDIS, prefix, REPLICAS, JVM_ENV);
    }
}
