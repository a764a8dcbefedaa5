package dev.backstage.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

import dev.backstage.e2e.cluster.LocalCluster;
import dev.backstage.e2e.sandbox.RealSandbox;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.Conditions;
import dev.backstage.operator.model.KafkaTopologySettings;
import dev.backstage.operator.model.QueueSpec;
import dev.backstage.runtime.kafka.KafkaNames;
import dev.backstage.testsupport.ControlPlane;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every manifest in {@code examples/manifests/local/} runs as shipped on the cluster {@code bin/demo --keep} leaves
 * up (the real control plane, the chart installed as the demo installs it, the node agent, the local Redis,
 * RabbitMQ and Kafka of {@code bin/lib.sh}): {@code kubectl apply -n NS -f FILE} of the file itself, then every
 * topology in it Ready, every pool Ready and its Deployment at the replicas it asks for, all ready; a Kafka
 * topology's topics on the broker with the partitions and replication factor the file asks for.
 *
 * <p>All files are applied at once, each in a namespace of its own, before the first is checked, so the examples'
 * worker JVMs start side by side and the class waits for the slowest, not for their sum. The chart install is
 * {@link RealSandbox#installChart}'s, the same release and values as the other e2e classes: when one of them ran
 * first in this JVM, it changes nothing and returns once the operator is ready.
 */
@Tag("cluster")
@Tag("broker")
class LocalExamplesTest {
    private static final Path LOCAL = ControlPlane.repoRoot().resolve("examples/manifests/local");
    private static final Map<String, String> NAMESPACES = new ConcurrentHashMap<>();
    private static final Map<String, Long> APPLIED = new ConcurrentHashMap<>();

    private static LocalCluster cluster;
    private static KubernetesClient client;

    @BeforeAll
    static void installTheChartAndApplyEveryExample() throws IOException {
        cluster = LocalCluster.shared();
        client = cluster.client();
        long started = System.nanoTime();
        RealSandbox.installChart(cluster);
        log(String.format(Locale.ROOT, "chart installed (or already current) in %.1f s", seconds(started)));
        for (String file : localExamples().toList()) {
            String ns = UniqueNames.prefix("example-" + file.replace(".yaml", ""));
            cluster.kubectl("create", "namespace", ns).orThrow();
            NAMESPACES.put(file, ns);
            cluster.kubectl("apply", "-n", ns, "-f", LOCAL.resolve(file).toString())
                    .orThrow();
            APPLIED.put(file, System.nanoTime());
        }
    }

    @AfterAll
    static void removeTheNamespaces() {
        NAMESPACES.values().forEach(ns -> cluster.kubectl("delete", "namespace", ns, "--wait=false"));
    }

    static Stream<String> localExamples() throws IOException {
        try (Stream<Path> files = Files.list(LOCAL)) {
            List<String> names = files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".yaml"))
                    .sorted()
                    .toList();
            assertFalse(names.isEmpty(), "examples/manifests/local has manifests");
            return names.stream();
        }
    }

    @ParameterizedTest
    @MethodSource("localExamples")
    void givenALocalExample_whenAppliedAsShipped_thenItsTopologiesAndPoolsGetReady(String file) throws Exception {
        String ns = NAMESPACES.get(file);
        List<HasMetadata> objects = load(file);
        for (HasMetadata object : objects) {
            String name = object.getMetadata().getName();
            if (object instanceof BackstageTopology) {
                try {
                    await(file + ": topology " + name + " Ready")
                            .atMost(Duration.ofMinutes(2))
                            .until(() -> {
                                BackstageTopology t = client.resources(BackstageTopology.class)
                                        .inNamespace(ns)
                                        .withName(name)
                                        .get();
                                return t.getStatus() != null
                                        && Conditions.isTrue(t.getStatus().getConditions(), Conditions.READY);
                            });
                } catch (ConditionTimeoutException e) {
                    fail(file + ": topology " + name + " not Ready: " + readyMessage(ns, name) + " (the local brokers"
                            + " come from bin/lib.sh: ensure_redis, ensure_rabbitmq, ensure_kafka)");
                }
            } else if (object instanceof BackstageWorkerPool) {
                await(file + ": pool " + name + " Ready with its replicas ready")
                        .atMost(Duration.ofMinutes(3))
                        .until(() -> poolReady(ns, name));
            }
        }
        assertEquals(
                objects.stream().filter(BackstageWorkerPool.class::isInstance).count(),
                client.apps().deployments().inNamespace(ns).list().getItems().size(),
                "one Deployment per pool");
        for (HasMetadata object : objects) {
            if (object instanceof BackstageTopology t
                    && "kafka".equals(t.getSpec().getProvider())) {
                assertTopicsOnTheBroker(t, objects);
            }
        }
        log(String.format(
                Locale.ROOT, "%s: everything Ready %.1f s after its apply", file, seconds(APPLIED.get(file))));
    }

    /** Each queue's topic on the broker the file's Secret names: its partitions and the file's replication factor. */
    private static void assertTopicsOnTheBroker(BackstageTopology topology, List<HasMetadata> objects)
            throws Exception {
        String secretName = topology.getSpec().getConnection().getSecretName();
        Secret secret = objects.stream()
                .filter(Secret.class::isInstance)
                .map(Secret.class::cast)
                .filter(s -> s.getMetadata().getName().equals(secretName))
                .findFirst()
                .orElseThrow();
        String bootstrap =
                secret.getStringData().get(topology.getSpec().getConnection().getKey());
        int replication =
                KafkaTopologySettings.replicationFactorOf(topology.getSpec().getKafka());
        KafkaNames names = new KafkaNames(topology.getSpec().getKeyPrefix());
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            for (QueueSpec queue : topology.getSpec().getQueues()) {
                String topic = names.jobTopic(queue.getName());
                TopicDescription d = admin.describeTopics(List.of(topic))
                        .allTopicNames()
                        .get()
                        .get(topic);
                int partitions = queue.getPartitions() == null ? 1 : queue.getPartitions();
                assertEquals(partitions, d.partitions().size(), topic + ": partitions on the broker");
                d.partitions()
                        .forEach(p -> assertEquals(
                                replication,
                                p.replicas().size(),
                                topic + "-" + p.partition() + ": replicas on the broker"));
            }
        }
    }

    /** The topology's Ready condition as the operator wrote it (say, the broker it could not reach). */
    private static String readyMessage(String ns, String name) {
        BackstageTopology t = client.resources(BackstageTopology.class)
                .inNamespace(ns)
                .withName(name)
                .get();
        return t == null || t.getStatus() == null
                ? "no status"
                : Conditions.find(t.getStatus().getConditions(), Conditions.READY)
                        .map(c -> c.getReason() + ": " + c.getMessage())
                        .orElse("no Ready condition");
    }

    private static List<HasMetadata> load(String file) throws IOException {
        try (InputStream in = Files.newInputStream(LOCAL.resolve(file))) {
            return client.load(in).items();
        }
    }

    private static boolean poolReady(String ns, String name) {
        BackstageWorkerPool pool = client.resources(BackstageWorkerPool.class)
                .inNamespace(ns)
                .withName(name)
                .get();
        Deployment deployment =
                client.apps().deployments().inNamespace(ns).withName(name).get();
        if (pool.getStatus() == null
                || !Conditions.isTrue(pool.getStatus().getConditions(), Conditions.READY)
                || deployment == null) {
            return false;
        }
        int wanted = deployment.getSpec().getReplicas() == null
                ? 1
                : deployment.getSpec().getReplicas();
        Integer ready =
                deployment.getStatus() == null ? null : deployment.getStatus().getReadyReplicas();
        return (ready == null ? 0 : ready) == wanted;
    }

    private static ConditionFactory await(String what) {
        return Awaitility.await(what).pollInterval(Duration.ofMillis(500));
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    private static void log(String message) {
        System.out.println("[real-cluster] " + message);
    }
}
