package dev.backstage.operator.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TopologySettingsTest {
    @Test
    void givenNoEnvironment_thenThe30SecondPollAndFiveCleanupAttempts() {
        assertEquals(TopologySettings.defaults(), TopologySettings.fromEnv(Map.of()));
        assertEquals(Duration.ofSeconds(30), TopologySettings.defaults().pollInterval());
    }

    @Test
    void givenEnvironment_thenItOverridesTheDefaults() {
        TopologySettings settings = TopologySettings.fromEnv(Map.of(
                "BACKSTAGE_TOPOLOGY_POLL_INTERVAL",
                "2s",
                "BACKSTAGE_TOPOLOGY_CLEANUP_ATTEMPTS",
                "3",
                "BACKSTAGE_TOPOLOGY_CLEANUP_RETRY_DELAY",
                "500ms"));
        assertEquals(new TopologySettings(Duration.ofSeconds(2), 3, Duration.ofMillis(500)), settings);
    }

    @Test
    void givenAZeroPollOrNoAttempts_thenTheSettingIsRefusedNamingTheVariable() {
        assertThrows(
                IllegalArgumentException.class,
                () -> TopologySettings.fromEnv(Map.of("BACKSTAGE_TOPOLOGY_POLL_INTERVAL", "0s")));
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> TopologySettings.fromEnv(Map.of("BACKSTAGE_TOPOLOGY_CLEANUP_ATTEMPTS", "many")));
        assertTrue(e.getMessage().contains("BACKSTAGE_TOPOLOGY_CLEANUP_ATTEMPTS"), e.getMessage());
    }
}
