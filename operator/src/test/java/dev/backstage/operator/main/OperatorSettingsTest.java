package dev.backstage.operator.main;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OperatorSettingsTest {
    @Test
    void givenEmptyEnvironment_thenAllNamespacesLeaderElectionAndDefaults() {
        OperatorSettings settings = OperatorSettings.fromEnv(Map.of());
        assertTrue(settings.watchesAllNamespaces());
        assertTrue(settings.leaderElection());
        assertEquals(LeaseSettings.defaults(null), settings.lease());
        assertEquals(8081, settings.httpPort());
        assertTrue(settings.exitWhenLeadershipLost(), "a deposed leader in a pod must stop");
    }

    @Test
    void givenWorkerLogVariables_thenTheWorkersGetThemAndABadOneNamesTheAllowedValues() {
        assertEquals(
                dev.backstage.runtime.logging.LogSettings.DEFAULTS,
                OperatorSettings.fromEnv(Map.of()).workerLogging());
        OperatorSettings settings = OperatorSettings.fromEnv(Map.of(
                "BACKSTAGE_WORKER_LOG_LEVEL",
                "debug",
                "BACKSTAGE_WORKER_LOG_FORMAT",
                "json",
                "BACKSTAGE_LOG_FORMAT",
                "text"));
        assertEquals(
                Map.of("BACKSTAGE_LOG_LEVEL", "debug", "BACKSTAGE_LOG_FORMAT", "json"),
                settings.workerLogging().toEnv(),
                "the operator's own format is not the workers'");
        assertEquals(
                "BACKSTAGE_WORKER_LOG_LEVEL must be one of trace, debug, info, warn, error, off, got 'loud'",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> OperatorSettings.fromEnv(Map.of("BACKSTAGE_WORKER_LOG_LEVEL", "loud")))
                        .getMessage());
    }

    @Test
    void givenCommaSeparatedNamespaces_thenTrimmedSetWithoutBlanks() {
        OperatorSettings settings = OperatorSettings.fromEnv(Map.of("WATCH_NAMESPACES", " shop, billing ,,"));
        assertEquals(Set.of("shop", "billing"), settings.watchNamespaces());
        assertFalse(settings.watchesAllNamespaces());
    }

    @Test
    void givenTheDownwardApiEnvironment_thenTheLeaseAndIdentityComeFromIt() {
        OperatorSettings settings = OperatorSettings.fromEnv(Map.of(
                "POD_NAMESPACE",
                "backstage-system",
                "POD_NAME",
                "backstage-operator-7d9f",
                "HOSTNAME",
                "h",
                "BACKSTAGE_LEASE_NAME",
                "my-lease",
                "BACKSTAGE_LEADER_ELECTION",
                "false",
                "BACKSTAGE_HTTP_PORT",
                "9090"));
        assertEquals("backstage-system", settings.lease().namespace());
        assertEquals("backstage-operator-7d9f", settings.identity());
        assertEquals("my-lease", settings.lease().name());
        assertFalse(settings.leaderElection());
        assertEquals(9090, settings.httpPort());
        assertEquals(
                "other",
                OperatorSettings.fromEnv(Map.of("POD_NAMESPACE", "x", "BACKSTAGE_LEASE_NAMESPACE", "other"))
                        .lease()
                        .namespace());
    }

    @Test
    void givenLeaseTimingsInTheEnvironment_thenTheyAreRead_andInconsistentOnesAreRefused() {
        OperatorSettings settings = OperatorSettings.fromEnv(Map.of(
                "BACKSTAGE_LEASE_DURATION",
                "6s",
                "BACKSTAGE_LEASE_RENEW_DEADLINE",
                "4s",
                "BACKSTAGE_LEASE_RETRY_PERIOD",
                "500ms"));
        assertEquals(
                new LeaseSettings(
                        LeaseSettings.DEFAULT_NAME,
                        null,
                        Duration.ofSeconds(6),
                        Duration.ofSeconds(4),
                        Duration.ofMillis(500)),
                settings.lease());
        var e = assertThrows(
                IllegalArgumentException.class,
                () -> OperatorSettings.fromEnv(
                        Map.of("BACKSTAGE_LEASE_DURATION", "5s", "BACKSTAGE_LEASE_RENEW_DEADLINE", "10s")));
        assertTrue(e.getMessage().contains("renewDeadline + retryPeriod < duration"), e.getMessage());
    }

    @Test
    void givenARenewDeadlinePlusRetryThatReachesTheLeaseDuration_whenRead_thenOneLineNamesTheVariablesAndValues() {
        var e = assertThrows(
                IllegalArgumentException.class,
                () -> OperatorSettings.fromEnv(Map.of(
                        "BACKSTAGE_LEASE_DURATION",
                        "10s",
                        "BACKSTAGE_LEASE_RENEW_DEADLINE",
                        "8s",
                        "BACKSTAGE_LEASE_RETRY_PERIOD",
                        "2s")));
        assertEquals(
                "lease timing must satisfy retryPeriod < renewDeadline and renewDeadline + retryPeriod < duration"
                        + " (BACKSTAGE_LEASE_RETRY_PERIOD, BACKSTAGE_LEASE_RENEW_DEADLINE, BACKSTAGE_LEASE_DURATION; the chart's"
                        + " leaderElection.*), got retryPeriod 2s, renewDeadline 8s, duration 10s",
                e.getMessage());
        assertEquals(
                new LeaseSettings(
                        LeaseSettings.DEFAULT_NAME,
                        null,
                        Duration.ofSeconds(10),
                        Duration.ofSeconds(7),
                        Duration.ofSeconds(1)),
                OperatorSettings.fromEnv(Map.of()).lease(),
                "the defaults: 10s, 7s, 1s");
        var bad = assertThrows(
                IllegalArgumentException.class,
                () -> OperatorSettings.fromEnv(Map.of("BACKSTAGE_LEASE_DURATION", "15")));
        assertTrue(bad.getMessage().startsWith("BACKSTAGE_LEASE_DURATION"), bad.getMessage());
    }

    @Test
    void givenBadPort_thenErrorNamesTheVariable() {
        var e = assertThrows(
                IllegalArgumentException.class, () -> OperatorSettings.fromEnv(Map.of("BACKSTAGE_HTTP_PORT", "http")));
        assertTrue(e.getMessage().contains("BACKSTAGE_HTTP_PORT"));
    }
}
