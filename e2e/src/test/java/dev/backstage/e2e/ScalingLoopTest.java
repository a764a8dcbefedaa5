package dev.backstage.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.backstage.e2e.sandbox.SandboxCluster;
import dev.backstage.examples.orders.Order;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.cli.BackstageCli;
import dev.backstage.runtime.core.CapabilitySet;
import dev.backstage.runtime.core.JobProducer;
import dev.backstage.runtime.core.PayloadCodec;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import dev.backstage.testsupport.EmbeddedKafka;
import dev.backstage.testsupport.RabbitMqQueues;
import dev.backstage.testsupport.UniqueNames;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The whole loop, per provider: apply a topology and an autoscaled pool → workers come up → 5,000 orders
 * are enqueued (1 % with a declined card, which always fails) → the pool scales up → drains → scales back
 * down → the failing jobs appear as dead letters in the pool's status and in {@code backstage inspect}.
 */
@Tag("broker")
class ScalingLoopTest {
    private static final int ORDERS = 5000;
    private static final int DECLINED = ORDERS / 100;

    /** A provider under test: how to reach it from here and from the pods, and its topology. */
    record Broker(String name, String url, String topologySpec) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Broker> brokers() {
        String redis = RedisStreams.URL;
        return Stream.of(
                new Broker("redis", redis, """
                        provider: redis
                          connection: {secretName: broker, key: url}"""),
                new Broker(
                        "rabbitmq",
                        System.getenv().getOrDefault("BACKSTAGE_RABBITMQ_URL", "amqp://guest:guest@127.0.0.1:5672"),
                        """
                        provider: rabbitmq
                          connection: {secretName: broker, key: url}"""),
                new Broker("kafka", null, """
                        provider: kafka
                          connection: {secretName: broker, key: url}
                          kafka: {replicationFactor: 1}
                          capabilities:
                            delays: {backend: redis, connection: {secretName: delays, key: url}}"""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("brokers")
    void givenAnAutoscaledPool_whenABacklogArrives_thenItScalesUpDrainsScalesDownAndReportsDeadLetters(Broker broker)
            throws Exception {
        String url = broker.name().equals("kafka") ? EmbeddedKafka.shared().bootstrapServers() : broker.url();
        String prefix = UniqueNames.prefix("e2e-" + broker.name());
        Path work = Files.createDirectories(Path.of("target", "e2e-pods", prefix));
        try (SandboxCluster cluster = SandboxCluster.start("shop", work)) {
            cluster.apply(manifests(broker, url, prefix));
            log(broker, "waiting for the topology to be Ready and the first worker");
            await().atMost(Duration.ofMinutes(2)).until(() -> cluster.readyReplicas("orders") >= 1);

            AtomicInteger peakReplicas = new AtomicInteger();
            Thread watcher = new Thread(
                    () -> {
                        while (!Thread.currentThread().isInterrupted()) {
                            BackstageWorkerPool pool = cluster.pool("orders");
                            if (pool != null
                                    && pool.getStatus() != null
                                    && pool.getStatus().getReplicas() != null) {
                                peakReplicas.accumulateAndGet(pool.getStatus().getReplicas(), Math::max);
                            }
                            try {
                                Thread.sleep(250);
                            } catch (InterruptedException e) {
                                return;
                            }
                        }
                    },
                    "pool-watcher");
            watcher.setDaemon(true);
            watcher.start();

            ProviderSettings settings = new ProviderSettings(broker.name(), url, prefix, "shop-workers", null);
            try (Provider provider = Providers.create(settings)) {
                JobProducer producer =
                        new JobProducer(new CapabilitySet(provider, null, null, null), PayloadCodec.defaults());
                // Eight publishers: RabbitMQ and Kafka publishes wait for the broker's confirm one by one.
                IntStream.range(0, ORDERS)
                        .parallel()
                        .forEach(i -> producer.enqueue(
                                "processOrder",
                                new Order("o-" + i, i, i % 100 == 0 ? "declined" : "visa"),
                                EnqueueOptions.defaults()));
            }
            log(broker, "enqueued " + ORDERS + " orders; waiting for the pool to scale up");
            await().atMost(Duration.ofMinutes(2)).until(() -> peakReplicas.get() >= 2);
            log(broker, "scaled up to " + peakReplicas.get() + "; waiting for the backlog to drain");
            await().atMost(Duration.ofMinutes(5))
                    .pollInterval(Duration.ofSeconds(1))
                    .until(() -> drained(cluster));
            log(broker, "drained; waiting for the scale-down");
            await().atMost(Duration.ofMinutes(2)).until(() -> cluster.specReplicas("orders") == 1);
            watcher.interrupt();

            BackstageWorkerPool pool = cluster.pool("orders");
            assertEquals(DECLINED, pool.getStatus().getDeadLetters().getTotal(), "dead letters in the pool's status");
            assertEquals(0, pool.getStatus().getBacklog().getOutstanding());
            assertTrue(peakReplicas.get() >= 2 && peakReplicas.get() <= 4, "peak " + peakReplicas.get());
            JsonNode inspect = inspect(broker, url, prefix);
            assertEquals(
                    DECLINED, inspect.path("queues").get(0).path("deadLetters").asLong(), inspect.toString());
            log(
                    broker,
                    "peak " + peakReplicas.get() + " replicas; " + DECLINED + " dead letters in status and in"
                            + " `backstage inspect`; pods started "
                            + cluster.kubelet().podsStarted());
        } finally {
            if (broker.name().equals("rabbitmq")) { // the cluster (operator and workers) is closed: nothing re-declares
                new RabbitMqQueues(url).deleteQueuesAndExchanges(prefix);
            }
        }
    }

    private static boolean drained(SandboxCluster cluster) {
        var s = cluster.pool("orders").getStatus();
        return s != null
                && s.getBacklog() != null
                && s.getBacklog().getOutstanding() != null
                && s.getBacklog().getOutstanding() == 0
                && s.getDeadLetters() != null
                && s.getDeadLetters().getTotal() != null
                && s.getDeadLetters().getTotal() == DECLINED;
    }

    private static JsonNode inspect(Broker broker, String url, String prefix) throws Exception {
        PrintStream out = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            int exit = BackstageCli.execute(
                    "inspect",
                    "--provider",
                    broker.name(),
                    "--url",
                    url,
                    "--prefix",
                    prefix,
                    "--group",
                    "shop-workers",
                    "--queue",
                    "default",
                    "--json");
            assertEquals(0, exit);
        } finally {
            System.setOut(out);
        }
        // The operator and the kubelet of this JVM log to the same System.out meanwhile: the document is the
        // lines from the first one that opens it (the CLI prints it pretty, in one write); Jackson stops after it.
        String text = captured.toString(StandardCharsets.UTF_8);
        int start = text.startsWith("{") ? 0 : text.indexOf("\n{") + 1;
        return new ObjectMapper().readTree(text.substring(start));
    }

    private static void log(Broker broker, String message) {
        System.out.println("[scaling " + broker.name() + "] " + message);
    }

    private static String manifests(Broker broker, String url, String prefix) {
        return """
                apiVersion: v1
                kind: Secret
                metadata: {name: broker}
                stringData: {url: "%s"}
                ---
                apiVersion: v1
                kind: Secret
                metadata: {name: delays}
                stringData: {url: "%s"}
                ---
                apiVersion: backstage.dev/v1alpha1
                kind: BackstageTopology
                metadata: {name: orders}
                spec:
                  %s
                  keyPrefix: %s
                  consumerGroup: shop-workers
                  queues: [{name: default, partitions: 4}]
                ---
                apiVersion: backstage.dev/v1alpha1
                kind: BackstageWorkerPool
                metadata: {name: orders}
                spec:
                  image: backstage-sample-tasks:0.1.0
                  topologyRef: {name: orders}
                  queues: [default]
                  concurrency: 8
                  maxRetries: 1
                  retryBackoff: {type: fixed, delay: 100ms}
                  shutdownGracePeriod: 10s
                  env: [{name: BACKSTAGE_SAMPLE_WORK_MS, value: "20"}]
                  autoscaling:
                    enabled: true
                    minReplicas: 1
                    maxReplicas: 4
                    targetBacklogPerReplica: 200
                    pollInterval: 2s
                    scaleDownWindow: 10s
                """.formatted(url, RedisStreams.URL, broker.topologySpec(), prefix);
    }
}
