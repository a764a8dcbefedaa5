package dev.backstage.operator.admission;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.testing.BackstageFixtures;
import dev.backstage.operator.testing.OperatorTestHarness;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.javaoperatorsdk.webhook.admission.Operation;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Admission of a pool reads its topology from the operator's informer cache, and from the API server only to confirm
 * a denial or when the cache does not hold it. An unreachable client shows that no API request was made: any read
 * through it would end in "could not look up".
 */
class CachedTopologyAdmissionTest {
    private static KubernetesClient unreachable;
    private static OperatorTestHarness harness;

    @BeforeAll
    static void start() {
        unreachable = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder()
                        .withMasterUrl("https://127.0.0.1:1")
                        .withRequestTimeout(2_000)
                        .withConnectionTimeout(2_000)
                        .withRequestRetryBackoffLimit(0)
                        .build())
                .build();
        harness = OperatorTestHarness.start();
    }

    @AfterAll
    static void stop() {
        unreachable.close();
        harness.close();
    }

    @Test
    void givenTheTopologyInTheCache_whenThePoolFitsIt_thenAllowedWithoutAnApiRequest() {
        BackstageTopology topology = BackstageFixtures.redisTopology("ns", "orders", "orders");
        AtomicInteger lookups = new AtomicInteger();
        TopologyLookup cache = (namespace, name) -> {
            lookups.incrementAndGet();
            return "ns".equals(namespace) && "orders".equals(name) ? Optional.of(topology) : Optional.empty();
        };

        Verdict verdict = new WorkerPoolValidator(unreachable, cache)
                .check(BackstageFixtures.pool("ns", "workers", "orders", "orders"), null, Operation.CREATE, "ns");

        assertTrue(verdict.allowed(), verdict.denials().toString());
        assertEquals(1, lookups.get());
    }

    @Test
    void givenAStaleCachedTopology_whenThePoolNamesAQueueAddedSince_thenTheApiServersCopyDecides() {
        String ns = harness.newNamespace("admission-stale");
        KubernetesClient client = harness.client();
        BackstageTopology stale = BackstageFixtures.redisTopology(ns, "orders", "orders");
        client.resource(BackstageFixtures.redisTopology(ns, "orders", "orders", "emails"))
                .create();
        BackstageWorkerPool pool = BackstageFixtures.pool(ns, "workers", "orders", "emails");

        Verdict verdict = new WorkerPoolValidator(client, (namespace, name) -> Optional.of(stale))
                .check(pool, null, Operation.CREATE, ns);

        assertTrue(verdict.allowed(), "the cache lags a moment; the API server has the queue: " + verdict.denials());
    }

    @Test
    void givenACachedTopology_whenThePoolDoesNotFitItThere_thenTheDenialIsTheApiServersAndSaysWhy() {
        String ns = harness.newNamespace("admission-deny");
        KubernetesClient client = harness.client();
        BackstageTopology cached = BackstageFixtures.redisTopology(ns, "orders", "orders");
        client.resource(BackstageFixtures.redisTopology(ns, "orders", "orders")).create();
        BackstageWorkerPool pool = BackstageFixtures.pool(ns, "workers", "orders", "emails");

        Verdict verdict = new WorkerPoolValidator(client, (namespace, name) -> Optional.of(cached))
                .check(pool, null, Operation.CREATE, ns);

        assertFalse(verdict.allowed());
        assertEquals(1, verdict.denials().size(), verdict.denials().toString());
        assertTrue(
                verdict.denials()
                        .get(0)
                        .startsWith("spec.queues: queue 'emails' is not declared by BackstageTopology" + " 'orders'"),
                verdict.denials().get(0));
    }

    @Test
    void givenATopologyTheCacheDoesNotHold_thenItIsReadFromTheApiServer() {
        String ns = harness.newNamespace("admission-miss");
        harness.client()
                .resource(BackstageFixtures.redisTopology(ns, "orders", "orders"))
                .create();

        Verdict verdict = new WorkerPoolValidator(harness.client(), TopologyLookup.NONE)
                .check(BackstageFixtures.pool(ns, "workers", "orders", "orders"), null, Operation.CREATE, ns);

        assertTrue(verdict.allowed(), verdict.denials().toString());
    }

    @Test
    void givenACreatedTopology_thenTheOperatorsCacheHoldsIt_andAdmissionAnswersFromItAlone() {
        String ns = harness.newNamespace("admission-cache");
        TopologyLookup cache = harness.operator().cachedTopologies();
        assertEquals(Optional.empty(), cache.cached(ns, "orders"));

        harness.client()
                .resource(BackstageFixtures.redisTopology(ns, "orders", "orders", "emails"))
                .create();

        BackstageTopology cached = await().atMost(Duration.ofSeconds(30))
                .until(() -> cache.cached(ns, "orders"), Optional::isPresent)
                .orElseThrow();
        assertEquals(
                List.of("orders", "emails"),
                cached.getSpec().getQueues().stream().map(q -> q.getName()).toList());
        Verdict verdict = new WorkerPoolValidator(unreachable, cache)
                .check(BackstageFixtures.pool(ns, "workers", "orders", "emails"), null, Operation.CREATE, ns);
        assertTrue(verdict.allowed(), "answered from the cache alone: " + verdict.denials());
    }
}
