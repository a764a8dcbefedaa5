package dev.backstage.operator.console;

import dev.backstage.operator.events.EventRecorder;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.operator.model.ScheduleSpec;
import dev.backstage.operator.testing.BackstageFixtures;
import dev.backstage.operator.testing.RealApiServer;
import dev.backstage.runtime.redis.RedisKeys;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the console's cluster tests share: a fresh namespace on the real API server with a Redis topology
 * ({@code orders}, queue {@code default}, schedule {@code nightly}), a pool ({@code workers}) with a status, two
 * service accounts ({@code reader}: get; {@code writer}: get and update on both kinds, and list on Events) and a console on a free port
 * watching that namespace, with its own Redis key prefix.
 */
final class ConsoleFixture implements AutoCloseable {
    static final String REDIS = "redis://127.0.0.1:6379";

    final RealApiServer api = RealApiServer.shared();
    final KubernetesClient client = api.client();
    final String ns = api.namespace("console");
    final String prefix;
    final RedisKeys keys;
    final EventRecorder events;
    final Console console;
    private final RedisClient redisClient = RedisClient.create(REDIS);
    private final StatefulRedisConnection<String, String> connection = redisClient.connect();
    final RedisCommands<String, String> redis = connection.sync();

    ConsoleFixture() throws IOException {
        client.resource(new SecretBuilder()
                        .withNewMetadata()
                        .withNamespace(ns)
                        .withName("orders-redis")
                        .endMetadata()
                        .withStringData(Map.of("url", REDIS))
                        .build())
                .create();
        BackstageTopology topology = BackstageFixtures.redisTopology(ns, "orders", "default");
        prefix = topology.getSpec().getKeyPrefix() + "-" + ns;
        keys = new RedisKeys(prefix);
        topology.getSpec().setKeyPrefix(prefix);
        ScheduleSpec nightly = new ScheduleSpec();
        nightly.setName("nightly");
        nightly.setSchedule("0 3 * * *");
        nightly.setTask("report");
        topology.getSpec().setSchedules(List.of(nightly));
        client.resource(topology).create();
        client.resource(BackstageFixtures.pool(ns, "workers", "orders", "default"))
                .create();
        BackstageWorkerPoolStatus status = new BackstageWorkerPoolStatus();
        status.setReadyReplicas(1);
        status.setDesiredReplicas(3);
        status.setLastScaleTime("2026-12-03T01:00:00Z");
        status.setLastScaleReason("backlog 120 needs 3 workers");
        client.resources(BackstageWorkerPool.class)
                .inNamespace(ns)
                .withName("workers")
                .editStatus(p -> {
                    p.setStatus(status);
                    return p;
                });
        role("reader", "get", "list", "watch");
        role("writer", "get", "list", "watch", "update");
        events = new EventRecorder(client, "backstage-operator", "console-test", Clock.systemUTC());
        console = new Console(
                client,
                new ConsoleSettings(true, 0, Duration.ofSeconds(1), 60, Duration.ofHours(1)),
                Set.of(ns),
                events,
                Clock.systemUTC());
        console.start();
    }

    /** A fresh 10-minute token of one of the fixture's service accounts. */
    String token(String serviceAccount) {
        return client.serviceAccounts()
                .inNamespace(ns)
                .withName(serviceAccount)
                .tokenRequest(new TokenRequestBuilder()
                        .withNewSpec()
                        .withExpirationSeconds(600L)
                        .endSpec()
                        .build())
                .getStatus()
                .getToken();
    }

    /** Adds a dead letter of task processOrder to queue default; returns its entry id. */
    String deadLetter(String payload) {
        return redis.xadd(
                keys.deadLetter("default"),
                Map.of(
                        "taskName",
                        "processOrder",
                        "payload",
                        payload,
                        "error",
                        "boom",
                        "deliveryCount",
                        "5",
                        "deadLetteredAt",
                        String.valueOf(System.currentTimeMillis()),
                        "originalId",
                        "0-1",
                        "enqueuedAt",
                        "0"));
    }

    private void role(String name, String... verbs) {
        client.resource(new ServiceAccountBuilder()
                        .withNewMetadata()
                        .withNamespace(ns)
                        .withName(name)
                        .endMetadata()
                        .build())
                .create();
        client.resource(new RoleBuilder()
                        .withNewMetadata()
                        .withNamespace(ns)
                        .withName(name)
                        .endMetadata()
                        .addNewRule()
                        .withApiGroups("backstage.dev")
                        .withResources("backstageworkerpools", "backstagetopologies")
                        .withVerbs(verbs)
                        .endRule()
                        // The writer may also list the namespace's Events (the pool page shows them); the reader may
                        // not.
                        .addNewRule()
                        .withApiGroups("")
                        .withResources("events")
                        .withVerbs("writer".equals(name) ? List.of("list") : List.of("get"))
                        .endRule()
                        .build())
                .create();
        client.resource(new RoleBindingBuilder()
                        .withNewMetadata()
                        .withNamespace(ns)
                        .withName(name)
                        .endMetadata()
                        .withNewRoleRef("rbac.authorization.k8s.io", "Role", name)
                        .addNewSubject()
                        .withKind("ServiceAccount")
                        .withName(name)
                        .withNamespace(ns)
                        .endSubject()
                        .build())
                .create();
    }

    @Override
    public void close() {
        console.close();
        events.close();
        List<String> left = redis.keys(prefix + ":*");
        if (!left.isEmpty()) {
            redis.del(left.toArray(String[]::new));
        }
        connection.close();
        redisClient.shutdown();
        api.deleteNamespace(ns);
    }
}
