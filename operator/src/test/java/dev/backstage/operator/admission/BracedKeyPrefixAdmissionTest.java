package dev.backstage.operator.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.CapabilityBackend;
import dev.backstage.operator.model.ProviderType;
import dev.backstage.operator.model.RedisConnectionMode;
import dev.backstage.operator.model.RedisTopologySettings;
import dev.backstage.operator.model.SecretKeyReference;
import dev.backstage.operator.model.SuppliedCapabilities;
import dev.backstage.operator.testing.BackstageFixtures;
import io.javaoperatorsdk.webhook.admission.Operation;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A key prefix in braces ({@code {backstage}}, a Redis Cluster hash tag, how the seed SDKs share a cluster with us)
 * at admission: allowed for provider redis and for a Redis capability backend, denied for RabbitMQ and Kafka with
 * the runtime's own one-line reason.
 */
class BracedKeyPrefixAdmissionTest {
    private static final String WHY = "spec.keyPrefix '{backstage}' is a Redis Cluster hash tag, for provider redis"
            + " only: Kafka topic names cannot hold braces and RabbitMQ names should not; drop the braces: backstage";

    @Test
    void givenARedisClusterTopologyWithABracedPrefix_whenCreated_thenAllowed() {
        BackstageTopology topology = BackstageFixtures.redisTopology("ns", "orders", "default");
        topology.getSpec().setKeyPrefix("{backstage}");
        RedisTopologySettings redis = new RedisTopologySettings();
        redis.setMode(RedisConnectionMode.CLUSTER);
        topology.getSpec().setRedis(redis);

        Verdict verdict = new TopologyValidator().check(topology, null, Operation.CREATE, "ns");

        assertEquals(List.of(), verdict.denials());
    }

    @Test
    void givenABracedPrefixOnRabbitMqOrKafka_whenCreated_thenDeniedWithWhyAndWhatToUse() {
        for (ProviderType provider : List.of(ProviderType.RABBITMQ, ProviderType.KAFKA)) {
            BackstageTopology topology = BackstageFixtures.redisTopology("ns", "orders", "default");
            topology.getSpec().setProvider(provider);
            topology.getSpec().setKeyPrefix("{backstage}");
            topology.getSpec().setCapabilities(new SuppliedCapabilities(delays("{delays}"), null));

            Verdict verdict = new TopologyValidator().check(topology, null, Operation.CREATE, "ns");

            assertEquals(List.of(WHY), verdict.denials(), provider.wire());
        }
    }

    @Test
    void givenAMalformedBracedPrefixOnARedisBackend_whenCreated_thenDeniedWithTheRedisRule() {
        BackstageTopology topology = BackstageFixtures.redisTopology("ns", "orders", "default");
        topology.getSpec().setProvider(ProviderType.KAFKA);
        topology.getSpec().setKeyPrefix("jobs");
        topology.getSpec().setCapabilities(new SuppliedCapabilities(delays("{hy}:a"), null));

        Verdict verdict = new TopologyValidator().check(topology, null, Operation.CREATE, "ns");

        assertEquals(1, verdict.denials().size(), verdict.denials().toString());
        assertTrue(
                verdict.denials()
                        .get(0)
                        .startsWith("spec.capabilities.delays.keyPrefix '{hy}:a' is not a valid key prefix"),
                verdict.denials().get(0));
        assertTrue(
                verdict.denials().get(0).endsWith("e.g. {orders}"),
                verdict.denials().get(0));
    }

    private static CapabilityBackend delays(String keyPrefix) {
        return new CapabilityBackend(ProviderType.REDIS, new SecretKeyReference("delays-redis", "url"), keyPrefix);
    }
}
