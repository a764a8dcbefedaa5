package dev.backstage.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.backstage.e2e.cluster.LocalCluster;
import dev.backstage.e2e.sandbox.RealSandbox;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.operator.model.Conditions;
import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.core.CapabilitySet;
import dev.backstage.runtime.core.JobProducer;
import dev.backstage.runtime.core.PayloadCodec;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import dev.backstage.testsupport.KafkaCluster;
import dev.backstage.testsupport.RabbitMqQueues;
import dev.backstage.testsupport.SharedBroker;
import dev.backstage.testsupport.UniqueNames;
import dev.backstage.testsupport.UsesSharedBrokers;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.nio.file.Files;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The many-node examples as users apply them, on the real local cluster with the chart installed (as in
 * {@link RealClusterScenarioTest}): {@code examples/manifests/redis-cluster.yaml} on the 6-node Redis Cluster,
 * {@code rabbitmq-cluster.yaml} on the 3-node RabbitMQ cluster with quorum queues and {@code kafka.yaml} with its
 * production replication (factor 3, min ISR 2) on a 3-broker {@link KafkaCluster}. Only the connection details and
 * the key prefix are rewritten, and each pool is sized for a 2-core machine. Each topology comes Ready with its
 * objects on the broker (read from the broker), its workers run 200 orders to the end, and the pool's status counts
 * the declined ones as dead letters.
 */
@Tag("cluster")
@Tag("slow")
@UsesSharedBrokers({SharedBroker.REDIS_CLUSTER, SharedBroker.RABBITMQ_CLUSTER})
class ClusterExamplesScenarioTest {
    private static final String REDIS = System.getenv().getOrDefault("BACKSTAGE_REDIS_URL", "redis://127.0.0.1:6379");
    private static final String REDIS_CLUSTER = "redis+cluster://127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002";
    private static final String RABBITMQ_CLUSTER = "amqp://guest:guest@127.0.0.1:5681";
    private static final String RABBITMQ_ADDRESSES = "127.0.0.1:5681,127.0.0.1:5682,127.0.0.1:5683";
    /** On loopback each node's management API has a port of its own (15672 on each host in production). */
    private static final String RABBITMQ_MANAGEMENT =
            "http://127.0.0.1:15681,http://127.0.0.1:15682,http://127.0.0.1:15683";

    private static final int ORDERS = 200;
    private static final int DECLINED = 2; // one in 100

    private static LocalCluster cluster;
    private static KubernetesClient client;

    @BeforeAll
    static void installTheChart() {
        cluster = LocalCluster.shared();
        client = cluster.client();
        // helm never upgrades CRDs it finds installed: apply this checkout's, as an upgrading user does first.
        applyCrds();
        RealSandbox.installChart(cluster);
    }

    @Test
    void givenTheRedisClusterExample_whenOrdersArrive_thenThePoolScalesFromZeroRunsThemAndCountsItsDeadLetters()
            throws Exception {
        String ns = namespace("rcluster");
        String prefix = UniqueNames.prefix("rcluster");
        applyExample(
                "redis-cluster.yaml",
                ns,
                Map.of(
                        "redis+cluster://:CHANGE-ME@redis-0.redis.shop.svc.cluster.local:6379,redis-1.redis.shop.svc.cluster.local:6379",
                        REDIS_CLUSTER,
                        "keyPrefix: shop",
                        "keyPrefix: " + prefix));
        patchPool(
                ns,
                "shop-cluster-workers",
                "{\"autoscaling\": {\"maxReplicas\": 2, \"scaleDownWindow\": \"15s\","
                        + " \"pollInterval\": \"2s\"}, \"env\": [{\"name\": \"BACKSTAGE_SAMPLE_WORK_MS\", \"value\": \"20\"}]}");
        await("the topology Ready and the idle pool at zero")
                .atMost(Duration.ofMinutes(2))
                .until(() ->
                        topologyReady(ns, "shop-redis-cluster") && deploymentReplicas(ns, "shop-cluster-workers") == 0);
        RedisClusterClient redisClient = RedisClusterClient.create(List.of(RedisURI.create("127.0.0.1", 7000)));
        try (StatefulRedisClusterConnection<String, String> connection = redisClient.connect()) {
            var redis = connection.sync();
            for (String queue : List.of("default", "emails", "reports")) {
                String stream = "{" + prefix + ":" + queue + "}";
                assertEquals("stream", redis.type(stream), stream + " declared on the cluster");
                assertEquals(1, redis.xinfoGroups(stream).size(), stream + " has the shop-workers group");
            }
            enqueue(new ProviderSettings("redis", REDIS_CLUSTER, prefix, "shop-workers", null));
            await("the pool to scale up from zero and drain, " + DECLINED + " dead letters in status")
                    .atMost(Duration.ofMinutes(4))
                    .until(() -> drained(ns, "shop-cluster-workers"));
            assertEquals(
                    ORDERS - DECLINED,
                    redis.xrange("{" + prefix + ":default}", io.lettuce.core.Range.create("-", "+")).stream()
                            .filter(m -> "sendReceipt".equals(m.getBody().get("taskName")))
                            .count(),
                    "every order but the declined ones chained its receipt");
        } finally {
            redisClient.shutdown();
        }
        cluster.kubectl("delete", "namespace", ns, "--wait=false");
    }

    @Test
    void givenTheRabbitMqClusterExample_whenOrdersArrive_thenQuorumQueuesOnEveryNodeCarryThemToTheEnd()
            throws Exception {
        String ns = namespace("rqcluster");
        String prefix = UniqueNames.prefix("rqcluster");
        RabbitMqQueues management = new RabbitMqQueues(RABBITMQ_CLUSTER, "http://127.0.0.1:15681");
        try {
            applyExample(
                    "rabbitmq-cluster.yaml",
                    ns,
                    Map.of(
                            "amqp://backstage:CHANGE-ME@rabbitmq-0.rabbitmq.shop.svc.cluster.local:5672/%2F",
                            RABBITMQ_CLUSTER + "/%2F",
                            "keyPrefix: shop-cluster",
                            "keyPrefix: " + prefix,
                            "addresses: rabbitmq-0.rabbitmq.shop.svc.cluster.local:5672,rabbitmq-1.rabbitmq.shop.svc.cluster.local:5672,"
                                    + "rabbitmq-2.rabbitmq.shop.svc.cluster.local:5672",
                            "addresses: " + RABBITMQ_ADDRESSES + "\n    managementUrl: " + RABBITMQ_MANAGEMENT));
            patchPool(
                    ns,
                    "shop-rabbitmq-cluster-workers",
                    "{\"replicas\": 2, \"env\": [{\"name\":"
                            + " \"BACKSTAGE_SAMPLE_WORK_MS\", \"value\": \"20\"}], \"retryBackoff\": {\"delay\": \"1s\"}}");
            await("the topology Ready and 2 workers Ready")
                    .atMost(Duration.ofMinutes(3))
                    .until(() -> topologyReady(ns, "shop-rabbitmq-cluster")
                            && readyReplicas(ns, "shop-rabbitmq-cluster-workers") == 2);
            for (String queue : List.of(prefix + ".default", prefix + ".default.dead-letter")) {
                JsonNode declared = management.queue(queue);
                assertEquals("quorum", declared.path("type").asText(), queue);
                Set<String> members = new TreeSet<>();
                declared.path("members").forEach(m -> members.add(m.asText()));
                assertEquals(Set.of("bs-a@localhost", "bs-b@localhost", "bs-c@localhost"), members, queue + " members");
            }
            enqueue(new ProviderSettings(
                    "rabbitmq",
                    RABBITMQ_CLUSTER,
                    prefix,
                    null,
                    Map.of("queueType", "quorum", "addresses", RABBITMQ_ADDRESSES, "deliveryLimit", "10")));
            await("the drain, " + DECLINED + " dead letters in status")
                    .atMost(Duration.ofMinutes(4))
                    .until(() -> drained(ns, "shop-rabbitmq-cluster-workers"));
            await("the dead letters on the broker")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> management
                                    .queue(prefix + ".default.dead-letter")
                                    .path("messages")
                                    .asInt()
                            == DECLINED);
            cluster.kubectl("delete", "namespace", ns, "--timeout=120s");
        } finally {
            management.deleteQueuesAndExchanges(prefix);
        }
    }

    @Test
    void givenTheKafkaExampleOnThreeBrokers_whenOrdersArrive_thenEveryTopicIsReplicatedAndTheWorkersRunThem()
            throws Exception {
        String ns = namespace("kcluster");
        String prefix = UniqueNames.prefix("kcluster");
        KafkaCluster kafka = KafkaCluster.shared();
        Map<String, String> rewrite = new LinkedHashMap<>();
        rewrite.put("kafka-bootstrap.kafka.svc.cluster.local:9092", kafka.bootstrapServers());
        rewrite.put("redis://:CHANGE-ME@redis.shop.svc.cluster.local:6379/1", REDIS);
        rewrite.put("keyPrefix: shop", "keyPrefix: " + prefix);
        applyExample("kafka.yaml", ns, rewrite); // replication as written: factor 3, min ISR 2
        patchPool(
                ns,
                "shop-kafka-workers",
                "{\"autoscaling\": {\"maxReplicas\": 2, \"pollInterval\": \"2s\"},"
                        + " \"env\": [{\"name\": \"BACKSTAGE_SAMPLE_WORK_MS\", \"value\": \"20\"}],"
                        + " \"retryBackoff\": {\"delay\": \"1s\", \"maxDelay\": \"2s\"}}");
        await("the topology Ready and a worker Ready")
                .atMost(Duration.ofMinutes(3))
                .until(() -> topologyReady(ns, "shop-kafka") && readyReplicas(ns, "shop-kafka-workers") >= 1);
        try (Admin admin = kafka.admin()) {
            String topic = prefix + ".default";
            TopicDescription jobs = admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(topic);
            assertEquals(6, jobs.partitions().size());
            jobs.partitions().forEach(p -> assertEquals(3, p.replicas().size(), topic + "-" + p.partition()));
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            Config config = admin.describeConfigs(List.of(resource))
                    .all()
                    .get(30, TimeUnit.SECONDS)
                    .get(resource);
            assertEquals("2", config.get("min.insync.replicas").value());
        }
        enqueue(new ProviderSettings(
                "kafka",
                kafka.bootstrapServers(),
                prefix,
                "shop-workers",
                Map.of("replicationFactor", "3", "minInsyncReplicas", "2")));
        await("the drain, " + DECLINED + " dead letters in status")
                .atMost(Duration.ofMinutes(4))
                .until(() -> drained(ns, "shop-kafka-workers"));
        cluster.kubectl("delete", "namespace", ns, "--wait=false");
    }

    // --- steps --------------------------------------------------------------------------------------------------

    private static String namespace(String what) {
        String ns = UniqueNames.prefix("e2e-" + what);
        cluster.kubectl("create", "namespace", ns).orThrow();
        return ns;
    }

    /** {@code kubectl apply -f examples/manifests/FILE} with the given text replaced (each must occur). */
    private static void applyExample(String file, String ns, Map<String, String> replacements) throws Exception {
        String yaml =
                Files.readString(cluster.root().resolve("examples/manifests").resolve(file));
        for (Map.Entry<String, String> r : replacements.entrySet()) {
            assertTrue(yaml.contains(r.getKey()), file + " no longer contains " + r.getKey());
            yaml = yaml.replace(r.getKey(), r.getValue());
        }
        // The control plane is shared: another checkout's test may have applied older CRDs since @BeforeAll, and the
        // API server refuses fields they lack (spec.rabbitmq.managementUrl). This checkout's go in right before.
        applyCrds();
        log("kubectl apply -n " + ns + " -f examples/manifests/" + file);
        cluster.kubectlWithInput(yaml, "apply", "-n", ns, "-f", "-").orThrow();
    }

    private static void applyCrds() {
        cluster.kubectl(
                        "apply",
                        "--server-side",
                        "--force-conflicts",
                        "-f",
                        cluster.root().resolve("crds").toString())
                .orThrow();
    }

    private static void patchPool(String ns, String pool, String spec) {
        cluster.kubectl("patch", "bwp", pool, "-n", ns, "--type", "merge", "-p", "{\"spec\": " + spec + "}")
                .orThrow();
    }

    /** Enqueues {@link #ORDERS} orders, one in 100 with a declined card (dead-lettered after its retries). */
    private static void enqueue(ProviderSettings settings) {
        try (Provider p = Providers.create(settings)) {
            JobProducer producer = new JobProducer(new CapabilitySet(p, null, null, null), PayloadCodec.defaults());
            IntStream.range(0, ORDERS)
                    .parallel()
                    .forEach(i -> producer.enqueue(
                            "processOrder",
                            new dev.backstage.examples.orders.Order("o-" + i, i, i % 100 == 0 ? "declined" : "visa"),
                            EnqueueOptions.defaults()));
        }
        log(settings.provider() + ": enqueued " + ORDERS + " orders");
    }

    private static boolean drained(String ns, String pool) {
        BackstageWorkerPool p = client.resources(BackstageWorkerPool.class)
                .inNamespace(ns)
                .withName(pool)
                .get();
        BackstageWorkerPoolStatus s = p == null ? null : p.getStatus();
        return s != null
                && s.getBacklog() != null
                && Long.valueOf(0).equals(s.getBacklog().getOutstanding())
                && s.getDeadLetters() != null
                && Long.valueOf(DECLINED).equals(s.getDeadLetters().getTotal());
    }

    private static boolean topologyReady(String ns, String name) {
        BackstageTopology t = client.resources(BackstageTopology.class)
                .inNamespace(ns)
                .withName(name)
                .get();
        return t != null
                && t.getStatus() != null
                && Conditions.isTrue(t.getStatus().getConditions(), Conditions.READY);
    }

    private static int deploymentReplicas(String ns, String name) {
        var d = client.apps().deployments().inNamespace(ns).withName(name).get();
        return d == null || d.getSpec().getReplicas() == null ? -1 : d.getSpec().getReplicas();
    }

    private static int readyReplicas(String ns, String name) {
        var d = client.apps().deployments().inNamespace(ns).withName(name).get();
        return d == null || d.getStatus() == null || d.getStatus().getReadyReplicas() == null
                ? 0
                : d.getStatus().getReadyReplicas();
    }

    private static org.awaitility.core.ConditionFactory await(String what) {
        log("waiting for " + what);
        return org.awaitility.Awaitility.await(what).pollInterval(Duration.ofMillis(500));
    }

    private static void log(String message) {
        System.out.println("[cluster-examples] " + message);
    }
}
