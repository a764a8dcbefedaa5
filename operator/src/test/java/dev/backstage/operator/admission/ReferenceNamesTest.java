package dev.backstage.operator.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.SecretKeyReference;
import dev.backstage.operator.testing.BackstageFixtures;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.javaoperatorsdk.webhook.admission.Operation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Names that refer to other objects are checked as Kubernetes names before anything is looked up with them. The
 * client here points at a closed port: a lookup would fail with "could not look up", so a denial that names the
 * invalid name shows that no lookup was tried.
 */
class ReferenceNamesTest {
    private static KubernetesClient unreachable;

    @BeforeAll
    static void client() {
        unreachable = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder()
                        .withMasterUrl("https://127.0.0.1:1")
                        .withRequestTimeout(2_000)
                        .withConnectionTimeout(2_000)
                        .withRequestRetryBackoffLimit(0)
                        .build())
                .build();
    }

    @AfterAll
    static void close() {
        unreachable.close();
    }

    @Test
    void givenATopologyRefThatIsAPath_whenAPoolIsCreated_thenDeniedAsAnInvalidNameInOneLineWithoutALookup() {
        BackstageWorkerPool pool = BackstageFixtures.pool("ns", "workers", "../../../api/v1/secrets", "default");

        Verdict verdict = new WorkerPoolValidator(unreachable).check(pool, null, Operation.CREATE, "ns");

        assertFalse(verdict.allowed());
        assertEquals(1, verdict.denials().size(), verdict.denials().toString());
        String denial = verdict.denials().get(0);
        assertTrue(
                denial.startsWith("spec.topologyRef.name '../../../api/v1/secrets' is not a valid Kubernetes name"),
                denial);
        assertTrue(denial.contains("set it to the name of a BackstageTopology in this namespace"), denial);
        assertFalse(denial.contains("\n"), denial);
    }

    @Test
    void givenATopologyRefWithANewline_thenTheDenialStaysOnOneLine() {
        BackstageWorkerPool pool = BackstageFixtures.pool("ns", "workers", "orders\nX-Injected: yes", "default");

        Verdict verdict = new WorkerPoolValidator(unreachable).check(pool, null, Operation.CREATE, "ns");

        assertEquals(1, verdict.denials().size(), verdict.denials().toString());
        assertTrue(
                verdict.denials().get(0).contains("'orders\\u000aX-Injected: yes' is not a valid Kubernetes name"),
                verdict.denials().get(0));
        assertFalse(verdict.denials().get(0).contains("\n"));
    }

    @Test
    void givenAConnectionSecretNameAndKeyThatAreNotNames_whenATopologyIsCreated_thenBothDenied() {
        BackstageTopology topology = BackstageFixtures.redisTopology("ns", "orders", "default");
        topology.getSpec().setConnection(new SecretKeyReference("../secrets/admin", "../url"));

        Verdict verdict = new TopologyValidator().check(topology, null, Operation.CREATE, "ns");

        assertFalse(verdict.allowed());
        String denials = String.join("; ", verdict.denials());
        assertTrue(
                denials.contains("spec.connection.secretName '../secrets/admin' is not a valid Kubernetes name"),
                denials);
        assertTrue(denials.contains("spec.connection.key '../url' is not a valid Secret key"), denials);
    }

    @Test
    void givenValidReferenceNames_thenNoNameDenial() {
        BackstageTopology topology = BackstageFixtures.redisTopology("ns", "orders.v2", "default");
        topology.getSpec().setConnection(new SecretKeyReference("orders-redis.v1", "redis_url-2.txt"));
        topology.getSpec().setKeyPrefix("orders-v2"); // a key prefix allows no '.', a Kubernetes name does

        Verdict verdict = new TopologyValidator().check(topology, null, Operation.CREATE, "ns");

        assertTrue(verdict.allowed(), verdict.denials().toString());
    }
}
