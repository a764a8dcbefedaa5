package dev.backstage.runtime.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.spi.ConfigurationException;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import dev.backstage.testsupport.EmbeddedKafka;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("broker")
@Tag("slow")
class KafkaProviderFactoryTest {

    @Test
    void givenTheNameKafka_whenCreatedThroughTheServiceLoader_thenAKafkaProviderWithTheOptionsComesBack() {
        ProviderSettings settings = new ProviderSettings(
                "kafka",
                "kafka://" + EmbeddedKafka.shared().bootstrapServers(),
                "shop",
                "shop-workers",
                Map.of(
                        "partitions",
                        "6",
                        "replicationFactor",
                        "1",
                        "revokeWaitMs",
                        "2500",
                        "client.security.protocol",
                        "PLAINTEXT"));
        try (Provider provider = Providers.create(settings)) {
            KafkaProvider kafka = assertInstanceOf(KafkaProvider.class, provider);
            KafkaSettings s = kafka.settings();
            assertEquals(EmbeddedKafka.shared().bootstrapServers(), s.bootstrapServers());
            assertEquals("shop", s.prefix());
            assertEquals("shop-workers", s.consumerGroup());
            assertEquals(6, s.partitions());
            assertEquals(Duration.ofMillis(2500), s.revokeWait());
            assertEquals(Map.of("security.protocol", "PLAINTEXT"), s.clientProperties());
            assertTrue(provider.jobs().retryNeedsDelays());
            assertTrue(provider.topics().isPresent());
            assertFalse(provider.delays().isPresent());
            assertTrue(provider.health().up(), provider.health().detail());
        }
    }

    @Test
    void givenAnUnknownOption_thenCreationFailsNamingIt() {
        ConfigurationException e = assertThrows(
                ConfigurationException.class,
                () -> Providers.create(
                        new ProviderSettings("kafka", "127.0.0.1:9", null, null, Map.of("partitionz", "3"))));
        assertTrue(e.getMessage().contains("partitionz"), e.getMessage());
    }

    @Test
    void givenReplicationOptions_thenTheSettingsCarryThem_andTheTopicsGetMinInsyncReplicas() {
        KafkaSettings s = KafkaSettings.from(new ProviderSettings(
                "kafka", "127.0.0.1:9", null, null, Map.of("replicationFactor", "3", "minInsyncReplicas", "2")));
        assertEquals(3, s.replicationFactor());
        assertEquals(2, s.minInsyncReplicas());
        assertEquals(Map.of("min.insync.replicas", "2"), s.topicConfigs());
        assertEquals(Map.of(), KafkaSettings.of("127.0.0.1:9").topicConfigs(), "development: the broker's default");
    }

    @Test
    void givenMinInsyncReplicasAboveTheReplicationFactor_thenCreationFailsSayingWhatToSet() {
        ConfigurationException e = assertThrows(
                ConfigurationException.class,
                () -> Providers.create(new ProviderSettings(
                        "kafka",
                        "127.0.0.1:9",
                        null,
                        null,
                        Map.of("replicationFactor", "1", "minInsyncReplicas", "2"))));
        assertTrue(e.getMessage().contains("minInsyncReplicas 2 is more than replicationFactor 1"), e.getMessage());
    }

    @Test
    void givenNoBroker_thenHealthIsDownWithoutThrowing() {
        try (KafkaProvider provider = KafkaProvider.connect("127.0.0.1:1")) {
            assertFalse(provider.health().up());
        }
    }
}
