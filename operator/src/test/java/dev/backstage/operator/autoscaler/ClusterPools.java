package dev.backstage.operator.autoscaler;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.model.AutoscalingSpec;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.operator.model.Conditions;
import dev.backstage.operator.model.QueueBacklogStatus;
import dev.backstage.operator.model.QueueDeadLetterStatus;
import dev.backstage.operator.testing.BackstageFixtures;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * What the operator-on-a-cluster tests ({@link RedisClusterPoolTest}, {@link RabbitMqClusterPoolTest},
 * {@link KafkaClusterPoolTest}) share: the connection Secret, an autoscaled pool, waiting on the topology's Ready and
 * on the pool's status, and the per-queue figures of that status.
 */
final class ClusterPools {
    static final Duration WAIT = Duration.ofSeconds(60);
    static final String POLL = "1s";
    static final String WINDOW = "3s";

    private ClusterPools() {}

    static void secret(KubernetesClient client, String ns, String name, String url) {
        client.secrets()
                .inNamespace(ns)
                .resource(new SecretBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .addToStringData("url", url)
                        .build())
                .create();
    }

    /** Waits until the topology reconciler has declared the topology on the broker (Ready True). */
    static BackstageTopology awaitTopologyReady(KubernetesClient client, String ns, String name) {
        return await("topology " + ns + "/" + name + " Ready")
                .atMost(WAIT)
                .until(
                        () -> client.resources(BackstageTopology.class)
                                .inNamespace(ns)
                                .withName(name)
                                .get(),
                        t -> t != null
                                && t.getStatus() != null
                                && Conditions.isTrue(t.getStatus().getConditions(), Conditions.READY));
    }

    /** A pool on {@code queues} that autoscales from {@code min} to {@code max}, polling every second. */
    static BackstageWorkerPool autoscaledPool(
            String ns, String name, String topology, int min, int max, int perReplica, String... queues) {
        BackstageWorkerPool pool = BackstageFixtures.pool(ns, name, topology, queues);
        AutoscalingSpec autoscaling = new AutoscalingSpec();
        autoscaling.setEnabled(true);
        autoscaling.setMinReplicas(min);
        autoscaling.setMaxReplicas(max);
        autoscaling.setTargetBacklogPerReplica(perReplica);
        autoscaling.setPollInterval(POLL);
        autoscaling.setScaleDownWindow(WINDOW);
        pool.getSpec().setAutoscaling(autoscaling);
        return pool;
    }

    /** Waits for the pool's status to meet {@code condition}; a timeout prints the status last seen. */
    static BackstageWorkerPoolStatus awaitStatus(
            KubernetesClient client, String ns, String name, Predicate<BackstageWorkerPoolStatus> condition) {
        AtomicReference<BackstageWorkerPoolStatus> seen = new AtomicReference<>();
        await("pool " + ns + "/" + name + " status").atMost(WAIT).untilAsserted(() -> {
            BackstageWorkerPool pool = client.resources(BackstageWorkerPool.class)
                    .inNamespace(ns)
                    .withName(name)
                    .get();
            BackstageWorkerPoolStatus status = pool == null ? null : pool.getStatus();
            seen.set(status);
            assertTrue(
                    status != null && condition.test(status),
                    () -> "pool " + ns + "/" + name + " status: " + Serialization.asJson(status));
        });
        return seen.get();
    }

    static boolean backlogAvailable(BackstageWorkerPoolStatus status) {
        return Conditions.isTrue(status.getConditions(), AutoscalerStatus.BACKLOG_AVAILABLE);
    }

    static Map<String, Long> outstandingPerQueue(BackstageWorkerPoolStatus status) {
        return status.getBacklog().getQueues().stream()
                .collect(Collectors.toMap(QueueBacklogStatus::getQueue, QueueBacklogStatus::getOutstanding));
    }

    static Map<String, Long> deadLettersPerQueue(BackstageWorkerPoolStatus status) {
        return status.getDeadLetters().getQueues().stream()
                .collect(Collectors.toMap(QueueDeadLetterStatus::getQueue, QueueDeadLetterStatus::getCount));
    }

    static int deploymentReplicas(KubernetesClient client, String ns, String name) {
        Deployment deployment =
                client.apps().deployments().inNamespace(ns).withName(name).get();
        return deployment == null || deployment.getSpec().getReplicas() == null
                ? -1
                : deployment.getSpec().getReplicas();
    }
}
