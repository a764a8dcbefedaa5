package dev.backstage.operator.examples;

import static dev.backstage.operator.testing.BackstageFixtures.setTopologyReady;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.admission.TopologyValidator;
import dev.backstage.operator.admission.Verdict;
import dev.backstage.operator.model.AutoscalingSpec;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolSpec;
import dev.backstage.operator.model.CapabilityBackend;
import dev.backstage.operator.model.Conditions;
import dev.backstage.operator.model.QueueSpec;
import dev.backstage.operator.model.SecretKeyReference;
import dev.backstage.operator.testing.OperatorTestHarness;
import dev.backstage.operator.workload.WorkerContainer;
import dev.backstage.runtime.config.Durations;
import dev.backstage.runtime.config.RuntimeConfig;
import dev.backstage.runtime.config.RuntimeConfigFiles;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.webhook.admission.Operation;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The manifests in examples/manifests are what users copy first: they must parse into our CR classes (through
 * the generic client loader, which relies on META-INF/services), be self-consistent, and reconcile.
 */
class ExampleManifestsTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static OperatorTestHarness harness;
    private static KubernetesClient client;

    @BeforeAll
    static void start() {
        harness = OperatorTestHarness.start();
        client = harness.client();
    }

    @AfterAll
    static void stop() {
        harness.close();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "redis.yaml",
                "redis-cluster.yaml",
                "rabbitmq.yaml",
                "rabbitmq-cluster.yaml",
                "kafka.yaml",
                "local/redis.yaml",
                "local/rabbitmq.yaml",
                "local/kafka.yaml"
            })
    void givenAnExampleManifest_whenParsed_thenItFitsTheCrClassesAndIsSelfConsistent(String file) throws IOException {
        List<HasMetadata> items = load(file);
        List<BackstageTopology> topologies = ofType(items, BackstageTopology.class);
        List<BackstageWorkerPool> pools = ofType(items, BackstageWorkerPool.class);
        Map<String, Secret> secrets = ofType(items, Secret.class).stream()
                .collect(Collectors.toMap(s -> s.getMetadata().getName(), s -> s));
        assertEquals(1, topologies.size(), file + ": topologies");
        assertEquals(1, pools.size(), file + ": pools");
        assertEquals(
                items.size(),
                topologies.size() + pools.size() + secrets.size(),
                file + ": every document is a Secret, a BackstageTopology or a BackstageWorkerPool");

        BackstageTopology topology = topologies.get(0);
        assertSecretHasKey(secrets, topology.getSpec().getConnection(), file);
        if (topology.getSpec().getCapabilities() != null) {
            for (CapabilityBackend backend : new CapabilityBackend[] {
                topology.getSpec().getCapabilities().getDelays(),
                topology.getSpec().getCapabilities().getDedupe()
            }) {
                if (backend != null) {
                    assertSecretHasKey(secrets, backend.getConnection(), file);
                }
            }
        }
        BackstageWorkerPoolSpec pool = pools.get(0).getSpec();
        assertEquals(topology.getMetadata().getName(), pool.getTopologyRef().getName(), file + ": topologyRef");
        List<String> declared =
                topology.getSpec().getQueues().stream().map(QueueSpec::getName).toList();
        assertTrue(
                declared.containsAll(pool.getQueues()), file + ": pool queues " + pool.getQueues() + " ⊆ " + declared);

        List<String> durations = new ArrayList<>();
        durations.add(pool.getShutdownGracePeriod());
        durations.add(pool.getHardTimeout());
        if (pool.getRetryBackoff() != null) {
            durations.add(pool.getRetryBackoff().getDelay());
            durations.add(pool.getRetryBackoff().getMaxDelay());
        }
        AutoscalingSpec autoscaling = pool.getAutoscaling();
        if (autoscaling != null) {
            durations.add(autoscaling.getPollInterval());
            durations.add(autoscaling.getScaleDownWindow());
            durations.add(autoscaling.getTargetDrainTime());
            assertTrue(autoscaling.getMinReplicas() <= autoscaling.getMaxReplicas(), file + ": min <= max");
        }
        durations.stream().filter(d -> d != null).forEach(d -> Durations.parse(file, d));

        // What the admission webhook says (cron expressions, time zones and schedule queues included).
        Verdict verdict = new TopologyValidator().check(topology, null, Operation.CREATE, "shop");
        assertEquals(List.of(), verdict.denials(), file);
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis.yaml", "redis-cluster.yaml", "rabbitmq.yaml", "rabbitmq-cluster.yaml", "kafka.yaml"})
    void givenAnExampleManifest_whenReconciled_thenItsWorkersReadTheirSecrets(String file) throws IOException {
        String ns = harness.newNamespace(file.replace(".yaml", ""));
        List<HasMetadata> items = load(file);
        items.forEach(item -> client.resource(item).inNamespace(ns).create());
        BackstageTopology topology = ofType(items, BackstageTopology.class).get(0);
        topology.getMetadata().setNamespace(ns);
        setTopologyReady(client, topology, true, "Declared", "example");
        BackstageWorkerPool pool = ofType(items, BackstageWorkerPool.class).get(0);
        String name = pool.getMetadata().getName();

        Deployment deployment = await().atMost(WAIT)
                .until(
                        () -> client.apps()
                                .deployments()
                                .inNamespace(ns)
                                .withName(name)
                                .get(),
                        d -> d != null);
        Map<String, EnvVar> env = deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv().stream()
                .collect(Collectors.toMap(EnvVar::getName, e -> e));
        assertEquals(
                topology.getSpec().getConnection().getSecretName(),
                env.get(WorkerContainer.PROVIDER_URL_ENV)
                        .getValueFrom()
                        .getSecretKeyRef()
                        .getName());
        RuntimeConfig config = RuntimeConfigFiles.parse(client.configMaps()
                .inNamespace(ns)
                .withName(name + "-runtime-config")
                .get()
                .getData()
                .get(WorkerContainer.CONFIG_FILE));
        assertEquals(topology.getSpec().getProvider().wire(), config.provider().name());
        var capabilities = Optional.ofNullable(topology.getSpec().getCapabilities());
        capabilities.map(c -> c.getDelays()).ifPresent(delays -> {
            assertEquals(
                    delays.getConnection().getSecretName(),
                    env.get(WorkerContainer.DELAYS_URL_ENV)
                            .getValueFrom()
                            .getSecretKeyRef()
                            .getName());
            assertEquals(WorkerContainer.DELAYS_URL_ENV, config.delays().urlEnv());
        });
        capabilities.map(c -> c.getDedupe()).ifPresent(dedupe -> {
            assertEquals(
                    dedupe.getConnection().getSecretName(),
                    env.get(WorkerContainer.DEDUPE_URL_ENV)
                            .getValueFrom()
                            .getSecretKeyRef()
                            .getName());
            assertEquals(WorkerContainer.DEDUPE_URL_ENV, config.dedupe().urlEnv());
        });
        if (topology.getSpec().getRabbitmq() != null) {
            assertEquals(
                    topology.getSpec().getRabbitmq().getDelayedExchange().wire(),
                    config.provider().options().get("delayedExchange"));
        }
        if (topology.getSpec().getRedis() != null) {
            assertEquals(
                    topology.getSpec().getRedis().getMode().wire(),
                    config.provider().options().get("mode"));
            assertEquals(
                    String.valueOf(topology.getSpec().getRedis().getWaitReplicas()),
                    config.provider().options().get("waitReplicas"));
        }
        await().atMost(WAIT).until(() -> {
            BackstageWorkerPool current = client.resources(BackstageWorkerPool.class)
                    .inNamespace(ns)
                    .withName(name)
                    .get();
            return current.getStatus() != null
                    && Conditions.isTrue(current.getStatus().getConditions(), Conditions.READY);
        });
    }

    private static void assertSecretHasKey(Map<String, Secret> secrets, SecretKeyReference ref, String file) {
        Secret secret = secrets.get(ref.getSecretName());
        assertNotNull(secret, file + ": Secret " + ref.getSecretName() + " is referenced but not in the file");
        String key = ref.getKey() == null ? "url" : ref.getKey();
        assertTrue(
                secret.getStringData() != null && secret.getStringData().containsKey(key),
                file + ": Secret " + ref.getSecretName() + " has no key " + key);
        assertFalse(secret.getStringData().get(key).isBlank());
    }

    private static List<HasMetadata> load(String file) throws IOException {
        Path path = repoRoot().resolve("examples/manifests").resolve(file);
        try (InputStream in = Files.newInputStream(path)) {
            return client.load(in).items();
        }
    }

    private static <T> List<T> ofType(List<HasMetadata> items, Class<T> type) {
        return items.stream().filter(type::isInstance).map(type::cast).toList();
    }

    private static Path repoRoot() {
        return Path.of(System.getProperty("backstage.repoRoot", ".."))
                .toAbsolutePath()
                .normalize();
    }
}
