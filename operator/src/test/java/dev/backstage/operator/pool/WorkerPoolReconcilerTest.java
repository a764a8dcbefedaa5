package dev.backstage.operator.pool;

import static dev.backstage.operator.testing.BackstageFixtures.createReadyTopology;
import static dev.backstage.operator.testing.BackstageFixtures.pool;
import static dev.backstage.operator.testing.BackstageFixtures.redisTopology;
import static dev.backstage.operator.testing.BackstageFixtures.setTopologyReady;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.model.AutoscalingSpec;
import dev.backstage.operator.model.BacklogStatus;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.Condition;
import dev.backstage.operator.model.Conditions;
import dev.backstage.operator.model.DeadLetterStatus;
import dev.backstage.operator.testing.OperatorTestHarness;
import dev.backstage.operator.workload.PoolResources;
import dev.backstage.runtime.config.RuntimeConfig;
import dev.backstage.runtime.config.RuntimeConfigFiles;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The pool reconciler against the mock API server: one operator for the class, one namespace per test. */
class WorkerPoolReconcilerTest {
    private static final Duration WAIT = Duration.ofSeconds(90); // a deadline for a loaded machine, not a target
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

    @Test
    void givenReadyTopology_whenPoolApplied_thenConfigMapAndDeploymentAreCreatedOwnedByThePool() {
        String ns = harness.newNamespace("apply");
        createReadyTopology(client, redisTopology(ns, "orders", "orders", "emails"));
        BackstageWorkerPool created = client.resource(pool(ns, "workers", "orders", "orders", "emails"))
                .create();

        Deployment deployment = awaitDeployment(ns, "workers");
        ConfigMap config = client.configMaps()
                .inNamespace(ns)
                .withName("workers-runtime-config")
                .get();
        assertNotNull(config, "ConfigMap workers-runtime-config");
        assertOwnedBy(config, created);
        assertOwnedBy(deployment, created);

        RuntimeConfig runtime = RuntimeConfigFiles.parse(config.getData().get("runtime.yaml"));
        assertEquals("redis", runtime.provider().name());
        assertEquals("BACKSTAGE_PROVIDER_URL", runtime.provider().urlEnv());
        assertNull(runtime.provider().url(), "the operator never renders a URL");
        assertEquals("bs-orders", runtime.provider().prefix());
        assertEquals("backstage-workers", runtime.provider().consumerGroup());
        assertEquals(List.of("orders", "emails"), runtime.worker().queues());
        assertEquals(8, runtime.worker().concurrency());
        assertEquals(45_000L, runtime.worker().shutdownGraceMs());
        assertEquals(8080, runtime.server().port());
        assertNull(runtime.delays());

        assertEquals(2, deployment.getSpec().getReplicas());
        assertEquals(
                PoolPlan.hash(config.getData().get("runtime.yaml")),
                deployment
                        .getSpec()
                        .getTemplate()
                        .getMetadata()
                        .getAnnotations()
                        .get(PoolResources.CONFIG_HASH_ANNOTATION));
        PodSpec pod = deployment.getSpec().getTemplate().getSpec();
        assertEquals(55L, pod.getTerminationGracePeriodSeconds(), "45s shutdown grace + 10s margin");
        assertTrue(pod.getSecurityContext().getRunAsNonRoot());
        assertEquals(
                "RuntimeDefault", pod.getSecurityContext().getSeccompProfile().getType());
        Container worker = pod.getContainers().get(0);
        assertEquals("registry.example/backstage-worker:1.0", worker.getImage());
        assertTrue(
                worker.getCommand() == null || worker.getCommand().isEmpty(),
                "the image's entrypoint runs the runtime main");
        assertTrue(
                worker.getArgs() == null || worker.getArgs().isEmpty(), "no args: the runtime reads BACKSTAGE_CONFIG");
        assertTrue(worker.getSecurityContext().getReadOnlyRootFilesystem());
        assertFalse(worker.getSecurityContext().getAllowPrivilegeEscalation());
        assertEquals(
                List.of("ALL"), worker.getSecurityContext().getCapabilities().getDrop());
        assertEquals(
                "RuntimeDefault",
                worker.getSecurityContext().getSeccompProfile().getType());
        assertEquals("/healthz", worker.getLivenessProbe().getHttpGet().getPath());
        assertEquals("http", worker.getLivenessProbe().getHttpGet().getPort().getStrVal());
        assertEquals("/readyz", worker.getReadinessProbe().getHttpGet().getPath());
        assertEquals(8080, worker.getPorts().get(0).getContainerPort());
        assertEquals("http", worker.getPorts().get(0).getName());
        Map<String, EnvVar> env = worker.getEnv().stream().collect(Collectors.toMap(EnvVar::getName, e -> e));
        assertEquals("/etc/backstage/runtime.yaml", env.get("BACKSTAGE_CONFIG").getValue());
        assertEquals(
                "orders-redis",
                env.get("BACKSTAGE_PROVIDER_URL")
                        .getValueFrom()
                        .getSecretKeyRef()
                        .getName());
        assertEquals(
                "url",
                env.get("BACKSTAGE_PROVIDER_URL")
                        .getValueFrom()
                        .getSecretKeyRef()
                        .getKey());
        assertNull(env.get("BACKSTAGE_PROVIDER_URL").getValue(), "no credential inline");
        assertEquals(
                "metadata.name",
                env.get("POD_NAME").getValueFrom().getFieldRef().getFieldPath(),
                "the runtime names its consumer after the pod");
        assertEquals("info", env.get("BACKSTAGE_LOG_LEVEL").getValue(), "the operator's default for workers");
        assertEquals("text", env.get("BACKSTAGE_LOG_FORMAT").getValue());
        assertEquals(
                "v1",
                env.get("POD_NAME").getValueFrom().getFieldRef().getApiVersion(),
                "the API server's default, which server-side apply records as ours (fieldRef is atomic): without it the "
                        + "applied Deployment never matches and is applied again on every reconcile");
        assertTrue(worker.getVolumeMounts().stream()
                .anyMatch(m -> m.getMountPath().equals("/etc/backstage") && Boolean.TRUE.equals(m.getReadOnly())));
        assertTrue(
                worker.getVolumeMounts().stream().anyMatch(m -> m.getMountPath().equals("/tmp")));
        assertEquals(
                "workers-runtime-config",
                pod.getVolumes().stream()
                        .filter(v -> v.getConfigMap() != null)
                        .findFirst()
                        .orElseThrow()
                        .getConfigMap()
                        .getName());
        assertNotNull(pod.getVolumes().stream()
                .filter(v -> v.getEmptyDir() != null)
                .findFirst()
                .orElse(null));

        BackstageWorkerPool ready = awaitReady(ns, "workers");
        assertEquals(1L, ready.getStatus().getObservedGeneration());
        assertEquals(2, ready.getStatus().getReplicas());
        assertEquals(2, ready.getStatus().getReadyReplicas());
        assertEquals(2, ready.getStatus().getDesiredReplicas());
        await().atMost(WAIT).until(() -> reasons(ns).contains("DeploymentCreated"));
        assertFalse(
                reasons(ns).contains("ConfigCreated"),
                "the ConfigMap is named in DeploymentCreated, not an Event of its own");
    }

    @Test
    void givenAPoolThatSetsItsLogLevel_whenApplied_thenItsValueWinsAndTheOperatorsFormatFillsTheRest() {
        String ns = harness.newNamespace("log-env");
        createReadyTopology(client, redisTopology(ns, "orders", "orders"));
        BackstageWorkerPool pool = pool(ns, "workers", "orders", "orders");
        pool.getSpec()
                .setEnv(List.of(new io.fabric8.kubernetes.api.model.EnvVarBuilder()
                        .withName("BACKSTAGE_LOG_LEVEL")
                        .withValue("debug")
                        .build()));
        client.resource(pool).create();

        Container worker = awaitDeployment(ns, "workers")
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0);
        List<String> levels = worker.getEnv().stream()
                .filter(e -> e.getName().equals("BACKSTAGE_LOG_LEVEL"))
                .map(EnvVar::getValue)
                .toList();
        assertEquals(List.of("debug"), levels, "the pool's own value, once (server-side apply refuses a name twice)");
        assertEquals(
                List.of("text"),
                worker.getEnv().stream()
                        .filter(e -> e.getName().equals("BACKSTAGE_LOG_FORMAT"))
                        .map(EnvVar::getValue)
                        .toList());
    }

    @Test
    void givenRunningPool_whenSpecEdited_thenDeploymentRollsWithNewConfigHashAndObservedGenerationFollows() {
        String ns = harness.newNamespace("edit");
        createReadyTopology(client, redisTopology(ns, "orders", "orders"));
        client.resource(pool(ns, "workers", "orders", "orders")).create();
        awaitReady(ns, "workers");
        String firstHash = configHash(awaitDeployment(ns, "workers"));

        BackstageWorkerPool edited = client.resources(BackstageWorkerPool.class)
                .inNamespace(ns)
                .withName("workers")
                .edit(p -> {
                    p.getSpec().setConcurrency(32);
                    p.getSpec().setImage("registry.example/backstage-worker:1.1");
                    return p;
                });
        assertEquals(2L, edited.getMetadata().getGeneration());

        await().atMost(WAIT).untilAsserted(() -> {
            Deployment deployment = client.apps()
                    .deployments()
                    .inNamespace(ns)
                    .withName("workers")
                    .get();
            assertNotEquals(firstHash, configHash(deployment));
            assertEquals(
                    "registry.example/backstage-worker:1.1",
                    deployment
                            .getSpec()
                            .getTemplate()
                            .getSpec()
                            .getContainers()
                            .get(0)
                            .getImage());
        });
        ConfigMap config = client.configMaps()
                .inNamespace(ns)
                .withName("workers-runtime-config")
                .get();
        assertEquals(
                32,
                RuntimeConfigFiles.parse(config.getData().get("runtime.yaml"))
                        .worker()
                        .concurrency());
        assertEquals(
                PoolPlan.hash(config.getData().get("runtime.yaml")),
                configHash(client.apps()
                        .deployments()
                        .inNamespace(ns)
                        .withName("workers")
                        .get()));
        await().atMost(WAIT).untilAsserted(() -> {
            BackstageWorkerPool pool = getPool(ns, "workers");
            assertEquals(2L, pool.getStatus().getObservedGeneration());
            assertTrue(Conditions.isTrue(pool.getStatus().getConditions(), Conditions.READY));
        });
        await().atMost(WAIT)
                .until(() ->
                        reasons(ns).contains("DeploymentUpdated") && reasons(ns).contains("ConfigUpdated"));
    }

    @Test
    void givenSettledPool_whenReconciledWithoutChange_thenStatusIsNotRewritten() {
        String ns = harness.newNamespace("noop");
        BackstageTopology topology = createReadyTopology(client, redisTopology(ns, "orders", "orders"));
        client.resource(pool(ns, "workers", "orders", "orders")).create();
        BackstageWorkerPool settled = await().atMost(WAIT)
                .until(
                        () -> getPool(ns, "workers"),
                        p -> p.getStatus() != null
                                && Conditions.isTrue(p.getStatus().getConditions(), Conditions.READY)
                                && Integer.valueOf(2).equals(p.getStatus().getReadyReplicas()));
        double reconciles = harness.successfulReconciles(ns, "workers");

        // Someone annotates the pool's Deployment: the pool is reconciled (its Deployment's metadata changed), and
        // finds nothing of its own to change.
        client.apps().deployments().inNamespace(ns).withName("workers").edit(d -> {
            d.getMetadata().setAnnotations(Map.of("touched", "yes"));
            return d;
        });

        await().atMost(WAIT).until(() -> harness.successfulReconciles(ns, "workers") > reconciles);
        BackstageWorkerPool after = getPool(ns, "workers");
        assertEquals(
                settled.getMetadata().getResourceVersion(),
                after.getMetadata().getResourceVersion(),
                "no status write when nothing changed");
    }

    @Test
    void givenRunningPool_whenDeploymentDeletedByHand_thenItIsRecreated() {
        String ns = harness.newNamespace("delete");
        createReadyTopology(client, redisTopology(ns, "orders", "orders"));
        client.resource(pool(ns, "workers", "orders", "orders")).create();
        String firstUid = awaitDeployment(ns, "workers").getMetadata().getUid();
        awaitReady(ns, "workers");

        client.apps().deployments().inNamespace(ns).withName("workers").delete();

        await().atMost(WAIT).untilAsserted(() -> {
            Deployment again = client.apps()
                    .deployments()
                    .inNamespace(ns)
                    .withName("workers")
                    .get();
            assertNotNull(again, "Deployment recreated");
            assertNotEquals(firstUid, again.getMetadata().getUid());
            assertEquals(2, again.getSpec().getReplicas());
        });
    }

    @Test
    void givenRunningPool_whenDeploymentEditedByHand_thenTheDriftIsReverted() {
        String ns = harness.newNamespace("drift");
        createReadyTopology(client, redisTopology(ns, "orders", "orders"));
        client.resource(pool(ns, "workers", "orders", "orders")).create();
        awaitDeployment(ns, "workers");
        awaitReady(ns, "workers");

        client.apps().deployments().inNamespace(ns).withName("workers").edit(d -> {
            d.getSpec().setReplicas(7);
            d.getSpec().getTemplate().getSpec().getContainers().get(0).setImage("evil/image:latest");
            return d;
        });

        await().atMost(WAIT).untilAsserted(() -> {
            Deployment deployment = client.apps()
                    .deployments()
                    .inNamespace(ns)
                    .withName("workers")
                    .get();
            assertEquals(2, deployment.getSpec().getReplicas());
            assertEquals(
                    "registry.example/backstage-worker:1.0",
                    deployment
                            .getSpec()
                            .getTemplate()
                            .getSpec()
                            .getContainers()
                            .get(0)
                            .getImage());
        });
    }

    @Test
    void givenMissingTopology_whenPoolApplied_thenReadyFalseTopologyNotFoundAndNoWorkersUntilItAppears() {
        String ns = harness.newNamespace("notopo");
        client.resource(pool(ns, "workers", "ghost", "orders")).create();

        Condition ready = awaitReadyCondition(ns, "workers", PoolReadiness.TOPOLOGY_NOT_FOUND);
        assertEquals(Conditions.FALSE, ready.getStatus());
        assertTrue(ready.getMessage().contains("'ghost'") && ready.getMessage().contains(ns), ready.getMessage());
        assertNull(
                client.apps().deployments().inNamespace(ns).withName("workers").get(), "no workers without a topology");
        await().atMost(WAIT).until(() -> reasons(ns).contains(PoolReadiness.TOPOLOGY_NOT_FOUND));

        createReadyTopology(client, redisTopology(ns, "ghost", "orders"));

        awaitDeployment(ns, "workers");
        awaitReady(ns, "workers");
    }

    @Test
    void
            givenTopologyWithoutAVerdict_whenPoolApplied_thenWorkersStartAndNoStatusOrWarningUntilTheTopologySaysSomething() {
        String ns = harness.newNamespace("notready");
        BackstageTopology topology =
                client.resource(redisTopology(ns, "orders", "orders")).create();
        client.resource(pool(ns, "workers", "orders", "orders")).create();

        // Workers are started before the topology's first verdict, but the pool's status would only say "wait": it
        // is written when the topology's first status write starts the pool's next reconcile.
        await().atMost(WAIT)
                .until(() -> client.apps()
                                .deployments()
                                .inNamespace(ns)
                                .withName("workers")
                                .get()
                        != null);
        await().during(Duration.ofSeconds(1))
                .atMost(WAIT)
                .until(() -> getPool(ns, "workers").getStatus() == null);
        assertFalse(
                reasons(ns).contains(PoolReadiness.TOPOLOGY_NOT_READY), "no Warning for a topology not reconciled yet");

        setTopologyReady(client, topology, false, "BrokerUnreachable", "connection refused");
        Condition notReady = awaitReadyCondition(ns, "workers", PoolReadiness.TOPOLOGY_NOT_READY);
        assertTrue(notReady.getMessage().contains("BrokerUnreachable"), notReady.getMessage());
        String firstTransition = notReady.getLastTransitionTime();
        await().atMost(WAIT).until(() -> reasons(ns).contains(PoolReadiness.TOPOLOGY_NOT_READY));

        setTopologyReady(client, topology, false, "BrokerUnreachable", "connection reset");
        await().atMost(WAIT).untilAsserted(() -> {
            Condition c = Conditions.find(getPool(ns, "workers").getStatus().getConditions(), Conditions.READY)
                    .orElseThrow();
            assertEquals(PoolReadiness.TOPOLOGY_NOT_READY, c.getReason());
            assertTrue(c.getMessage().contains("connection reset"), c.getMessage());
            assertEquals(firstTransition, c.getLastTransitionTime(), "still False: no transition");
        });

        setTopologyReady(client, topology, true, "Declared", "ok");
        awaitReady(ns, "workers");
    }

    @Test
    void givenForeignDeploymentWithThePoolsName_thenReadyFalseReconcileFailedSaysSo() {
        String ns = harness.newNamespace("foreign");
        client.apps()
                .deployments()
                .inNamespace(ns)
                .resource(new io.fabric8.kubernetes.api.model.apps.DeploymentBuilder()
                        .withNewMetadata()
                        .withName("workers")
                        .endMetadata()
                        .withNewSpec()
                        .withNewSelector()
                        .addToMatchLabels("app", "other")
                        .endSelector()
                        .withNewTemplate()
                        .withNewMetadata()
                        .addToLabels("app", "other")
                        .endMetadata()
                        .withNewSpec()
                        .addNewContainer()
                        .withName("c")
                        .withImage("other")
                        .endContainer()
                        .endSpec()
                        .endTemplate()
                        .endSpec()
                        .build())
                .create();
        createReadyTopology(client, redisTopology(ns, "orders", "orders"));
        client.resource(pool(ns, "workers", "orders", "orders")).create();

        Condition failed = awaitReadyCondition(ns, "workers", PoolReadiness.RECONCILE_FAILED);
        assertTrue(failed.getMessage().contains("already exists"), failed.getMessage());
        assertEquals(
                "other",
                client.apps()
                        .deployments()
                        .inNamespace(ns)
                        .withName("workers")
                        .get()
                        .getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .get(0)
                        .getImage(),
                "a foreign object is never taken over");
        await().atMost(WAIT).until(() -> reasons(ns).contains(PoolReadiness.RECONCILE_FAILED));
    }

    @Test
    void givenAutoscalingOn_thenDeploymentFollowsStatusDesiredReplicasWithinBoundsAndAutoscalerFieldsSurvive() {
        String ns = harness.newNamespace("scale");
        createReadyTopology(client, redisTopology(ns, "orders", "orders"));
        BackstageWorkerPool pool = pool(ns, "workers", "orders", "orders");
        AutoscalingSpec autoscaling = new AutoscalingSpec();
        autoscaling.setEnabled(true);
        autoscaling.setMinReplicas(3);
        autoscaling.setMaxReplicas(6);
        pool.getSpec().setAutoscaling(autoscaling);
        client.resource(pool).create();

        await().atMost(WAIT)
                .untilAsserted(() ->
                        assertEquals(3, awaitDeployment(ns, "workers").getSpec().getReplicas()));
        awaitReady(ns, "workers");

        // What the autoscaler does: write its decision and measurements to status, nothing else.
        BackstageWorkerPool current = getPool(ns, "workers");
        current.getStatus().setDesiredReplicas(5);
        current.getStatus().setBacklog(new BacklogStatus(40L, 10L, 50L, null));
        current.getStatus().setLastScaleReason("backlog 50 > 3 x 10");
        client.resources(BackstageWorkerPool.class)
                .inNamespace(ns)
                .resource(current)
                .updateStatus();

        await().atMost(WAIT)
                .untilAsserted(() -> assertEquals(
                        5,
                        client.apps()
                                .deployments()
                                .inNamespace(ns)
                                .withName("workers")
                                .get()
                                .getSpec()
                                .getReplicas()));
        await().atMost(WAIT).untilAsserted(() -> {
            BackstageWorkerPool after = getPool(ns, "workers");
            assertEquals(5, after.getStatus().getReadyReplicas());
            assertEquals(5, after.getStatus().getDesiredReplicas());
            assertEquals(50L, after.getStatus().getBacklog().getOutstanding(), "autoscaler's backlog kept");
            assertEquals("backlog 50 > 3 x 10", after.getStatus().getLastScaleReason());
        });
        await().atMost(WAIT).until(() -> reasons(ns).contains("Scaled"));

        // A decision outside the bounds is clamped.
        current = getPool(ns, "workers");
        current.getStatus().setDesiredReplicas(60);
        client.resources(BackstageWorkerPool.class)
                .inNamespace(ns)
                .resource(current)
                .updateStatus();
        await().atMost(WAIT)
                .untilAsserted(() -> assertEquals(
                        6,
                        client.apps()
                                .deployments()
                                .inNamespace(ns)
                                .withName("workers")
                                .get()
                                .getSpec()
                                .getReplicas()));
    }

    @Test
    void givenReconciledPool_thenEveryPrinterColumnPathResolves() {
        String ns = harness.newNamespace("columns");
        createReadyTopology(client, redisTopology(ns, "orders", "orders"));
        client.resource(pool(ns, "workers", "orders", "orders")).create();
        awaitReady(ns, "workers");
        // The backlog columns show what the autoscaler measured; write it as the autoscaler would.
        BackstageWorkerPool current = getPool(ns, "workers");
        current.getStatus().setBacklog(new BacklogStatus(12L, 3L, 15L, null));
        current.getStatus().setDeadLetters(new DeadLetterStatus(4L, null));
        client.resources(BackstageWorkerPool.class)
                .inNamespace(ns)
                .resource(current)
                .updateStatus();

        var json = io.fabric8.kubernetes.client.utils.Serialization.jsonMapper().valueToTree(getPool(ns, "workers"));
        Map<String, String> columns = PrinterColumns.evaluate(
                "META-INF/fabric8/backstageworkerpools.backstage.dev-v1.yml",
                (com.fasterxml.jackson.databind.JsonNode) json);
        assertEquals(
                Map.of("Ready", "True", "Replicas", "2", "Desired", "2", "Backlog", "15", "DeadLetters", "4"),
                withoutAge(columns));
        assertFalse(columns.get("Age").isEmpty());
        assertEquals(getPool(ns, "workers").getStatus().getHeartbeatTime(), columns.get("Heartbeat"));
        assertNotNull(columns.get("Heartbeat"), "the reconciler writes a heartbeat with the status");

        BackstageTopology topology = client.resources(BackstageTopology.class)
                .inNamespace(ns)
                .withName("orders")
                .get();
        // The schedule columns show what the schedule firing wrote; write it as it would.
        topology.getStatus().setScheduleSummary("2 (1 suspended)");
        topology.getStatus().setLastFiredTick("2026-01-01T00:20:00Z");
        Map<String, String> topologyColumns = PrinterColumns.evaluate(
                "META-INF/fabric8/backstagetopologies.backstage.dev-v1.yml",
                io.fabric8.kubernetes.client.utils.Serialization.jsonMapper().valueToTree(topology));
        assertEquals(
                Map.of(
                        "Provider",
                        "redis",
                        "Ready",
                        "True",
                        "Schedules",
                        "2 (1 suspended)",
                        "Last Fired",
                        "2026-01-01T00:20:00Z"),
                withoutAge(topologyColumns));
    }

    private static Map<String, String> withoutAge(Map<String, String> columns) {
        return columns.entrySet().stream()
                .filter(e -> !e.getKey().equals("Age") && !e.getKey().equals("Heartbeat"))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    private static void assertOwnedBy(HasMetadata owned, BackstageWorkerPool owner) {
        List<OwnerReference> refs = owned.getMetadata().getOwnerReferences();
        assertEquals(1, refs.size(), "owner references of " + owned.getKind());
        OwnerReference ref = refs.get(0);
        assertEquals("backstage.dev/v1alpha1", ref.getApiVersion());
        assertEquals("BackstageWorkerPool", ref.getKind());
        assertEquals(owner.getMetadata().getName(), ref.getName());
        assertEquals(owner.getMetadata().getUid(), ref.getUid());
        assertEquals(Boolean.TRUE, ref.getController(), "the pool is the controller");
        assertEquals(Boolean.TRUE, ref.getBlockOwnerDeletion());
    }

    private static Deployment awaitDeployment(String ns, String name) {
        return await().atMost(WAIT)
                .until(
                        () -> client.apps()
                                .deployments()
                                .inNamespace(ns)
                                .withName(name)
                                .get(),
                        d -> d != null);
    }

    private static BackstageWorkerPool getPool(String ns, String name) {
        return client.resources(BackstageWorkerPool.class)
                .inNamespace(ns)
                .withName(name)
                .get();
    }

    private static BackstageWorkerPool awaitReady(String ns, String name) {
        return await().atMost(WAIT)
                .until(
                        () -> getPool(ns, name),
                        p -> p.getStatus() != null
                                && Conditions.isTrue(p.getStatus().getConditions(), Conditions.READY));
    }

    private static Condition awaitReadyCondition(String ns, String name, String reason) {
        return await().atMost(WAIT)
                .until(
                        () -> Optional.ofNullable(getPool(ns, name).getStatus())
                                .flatMap(s -> Conditions.find(s.getConditions(), Conditions.READY))
                                .orElse(null),
                        c -> c != null && reason.equals(c.getReason()));
    }

    private static String configHash(Deployment deployment) {
        return deployment
                .getSpec()
                .getTemplate()
                .getMetadata()
                .getAnnotations()
                .get(PoolResources.CONFIG_HASH_ANNOTATION);
    }

    private static List<String> reasons(String ns) {
        return client.v1().events().inNamespace(ns).list().getItems().stream()
                .map(Event::getReason)
                .toList();
    }
}
