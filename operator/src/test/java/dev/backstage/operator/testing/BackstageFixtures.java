package dev.backstage.operator.testing;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageTopologySpec;
import dev.backstage.operator.model.BackstageTopologyStatus;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolSpec;
import dev.backstage.operator.model.Conditions;
import dev.backstage.operator.model.ProviderType;
import dev.backstage.operator.model.QueueSpec;
import dev.backstage.operator.model.SecretKeyReference;
import dev.backstage.operator.model.TopologyReference;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Small, valid Backstage resources for tests, and the one status write tests need while no topology reconciler
 * runs: marking a topology Ready (or not).
 */
public final class BackstageFixtures {
    private BackstageFixtures() {}

    /** A Redis topology with the given queues, connection from Secret {@code <name>-redis} key {@code url}. */
    public static BackstageTopology redisTopology(String namespace, String name, String... queues) {
        BackstageTopologySpec spec = new BackstageTopologySpec();
        spec.setProvider(ProviderType.REDIS);
        spec.setConnection(new SecretKeyReference(name + "-redis", "url"));
        spec.setKeyPrefix("bs-" + name);
        List<QueueSpec> queueSpecs = new ArrayList<>();
        for (String queue : queues) {
            queueSpecs.add(new QueueSpec(queue, null, null));
        }
        spec.setQueues(queueSpecs);
        BackstageTopology topology = new BackstageTopology();
        topology.setMetadata(
                new ObjectMetaBuilder().withNamespace(namespace).withName(name).build());
        topology.setSpec(spec);
        return topology;
    }

    /** A pool of 2 replicas on {@code topology}'s queues. */
    public static BackstageWorkerPool pool(String namespace, String name, String topology, String... queues) {
        BackstageWorkerPoolSpec spec = new BackstageWorkerPoolSpec();
        spec.setImage("registry.example/backstage-worker:1.0");
        spec.setTopologyRef(new TopologyReference(topology));
        spec.setQueues(List.of(queues));
        spec.setReplicas(2);
        spec.setConcurrency(8);
        spec.setShutdownGracePeriod("45s");
        BackstageWorkerPool pool = new BackstageWorkerPool();
        pool.setMetadata(
                new ObjectMetaBuilder().withNamespace(namespace).withName(name).build());
        pool.setSpec(spec);
        return pool;
    }

    /** Writes the topology's Ready condition as the topology reconciler would. */
    public static BackstageTopology setTopologyReady(
            KubernetesClient client, BackstageTopology topology, boolean ready, String reason, String message) {
        BackstageTopology current = client.resources(BackstageTopology.class)
                .inNamespace(topology.getMetadata().getNamespace())
                .withName(topology.getMetadata().getName())
                .get();
        if (current.getStatus() == null) {
            current.setStatus(new BackstageTopologyStatus());
        }
        Conditions.set(
                current.getStatus().getConditions(),
                Conditions.READY,
                ready ? Conditions.TRUE : Conditions.FALSE,
                reason,
                message,
                current.getMetadata().getGeneration(),
                Instant.now());
        current.getStatus().setObservedGeneration(current.getMetadata().getGeneration());
        return client.resources(BackstageTopology.class)
                .inNamespace(current.getMetadata().getNamespace())
                .resource(current)
                .updateStatus();
    }

    /** Creates the topology and marks it Ready. */
    public static BackstageTopology createReadyTopology(KubernetesClient client, BackstageTopology topology) {
        client.resource(topology).create();
        return setTopologyReady(client, topology, true, "Declared", "all broker objects exist");
    }
}
