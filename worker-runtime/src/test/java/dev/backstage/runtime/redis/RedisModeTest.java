package dev.backstage.runtime.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.spi.ConfigurationException;
import dev.backstage.runtime.spi.ProviderSettings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The connection mode from the URL and the options, and the one-line errors of bad combinations. */
class RedisModeTest {
    private static RedisSettings from(String url, Map<String, String> options) {
        return RedisSettings.from(new ProviderSettings("redis", url, "backstage", "backstage-workers", options));
    }

    @Test
    void givenEachScheme_thenTheModeIsTheSchemes() {
        assertEquals(
                RedisMode.STANDALONE, RedisSettings.of("redis://127.0.0.1:6379").mode());
        assertEquals(
                RedisMode.CLUSTER,
                RedisSettings.of("redis+cluster://127.0.0.1:7000,127.0.0.1:7001")
                        .mode());
        assertEquals(
                RedisMode.CLUSTER,
                RedisSettings.of("rediss+cluster://u:p@h:7000").mode());
        assertEquals(
                RedisMode.SENTINEL,
                RedisSettings.of("redis-sentinel://127.0.0.1:26379#backstage").mode());
    }

    @Test
    void givenAPlainUrlAndModeCluster_thenItIsACluster() {
        assertEquals(
                RedisMode.CLUSTER,
                from("rediss://clustercfg.example:6379", Map.of("mode", "cluster"))
                        .mode());
    }

    @Test
    void givenAClusterUrlWithADatabaseNumber_thenTheErrorSaysToDropIt() {
        var e = assertThrows(ConfigurationException.class, () -> RedisSettings.of("redis+cluster://127.0.0.1:7000/2"));
        assertEquals("Redis Cluster has only database 0: drop /2 from the URL", e.getMessage());
        var option = assertThrows(
                ConfigurationException.class, () -> from("redis://127.0.0.1:7000/3", Map.of("mode", "cluster")));
        assertTrue(option.getMessage().contains("drop /3"), option.getMessage());
    }

    @Test
    void givenASentinelUrlWithoutTheMasterName_thenTheErrorShowsWhereItGoes() {
        var e = assertThrows(ConfigurationException.class, () -> RedisSettings.of("redis-sentinel://127.0.0.1:26379"));
        assertTrue(e.getMessage().contains("redis-sentinel://host:26379#mymaster"), e.getMessage());
    }

    @Test
    void givenModeSentinelOnAPlainUrl_thenTheErrorAsksForTheSentinelsAddresses() {
        var e = assertThrows(
                ConfigurationException.class, () -> from("redis://127.0.0.1:6379", Map.of("mode", "sentinel")));
        assertTrue(e.getMessage().startsWith("mode=sentinel needs the sentinels' addresses"), e.getMessage());
    }

    @Test
    void givenAModeThatContradictsTheScheme_thenTheErrorNamesBoth() {
        var e = assertThrows(
                ConfigurationException.class,
                () -> from("redis+cluster://127.0.0.1:7000", Map.of("mode", "standalone")));
        assertEquals(
                "redis option mode=standalone contradicts the URL's scheme (cluster); drop the option or use a"
                        + " standalone URL",
                e.getMessage());
    }

    @Test
    void givenSeveralHostsInAPlainUrl_thenTheErrorShowsTheClusterAndSentinelSpellings() {
        var e = assertThrows(ConfigurationException.class, () -> RedisSettings.of("redis://h1:7000,h2:7001"));
        assertTrue(e.getMessage().contains("redis+cluster://h1:7000,h2:7001"), e.getMessage());
    }

    @Test
    void givenAnUnknownModeOrScheme_thenTheErrorListsTheChoices() {
        var mode = assertThrows(
                ConfigurationException.class, () -> from("redis://127.0.0.1:6379", Map.of("mode", "sharded")));
        assertEquals("redis option mode is standalone, cluster or sentinel, got 'sharded'", mode.getMessage());
        var scheme = assertThrows(ConfigurationException.class, () -> RedisSettings.of("http://127.0.0.1:6379"));
        assertTrue(scheme.getMessage().contains("redis+cluster://"), scheme.getMessage());
    }

    @Test
    void givenReplicaWaitOptions_thenTheyAreReadAndBadValuesAreOneLineErrors() {
        RedisSettings s = from("redis+cluster://127.0.0.1:7000", Map.of("waitReplicas", "1", "waitTimeoutMs", "250"));
        assertEquals(new ReplicaWait(1, Duration.ofMillis(250)), s.replicaWait());
        assertFalse(RedisSettings.of("redis://127.0.0.1:6379").replicaWait().on());
        var negative = assertThrows(
                ConfigurationException.class, () -> from("redis://127.0.0.1:6379", Map.of("waitReplicas", "-1")));
        assertTrue(negative.getMessage().startsWith("redis option waitReplicas must be >= 0"), negative.getMessage());
        var zero = assertThrows(
                ConfigurationException.class,
                () -> from("redis://127.0.0.1:6379", Map.of("waitReplicas", "1", "waitTimeoutMs", "0")));
        assertTrue(zero.getMessage().contains("WAIT 0 would block forever"), zero.getMessage());
    }

    @Test
    void givenAClusterUrlWithCredentials_thenEachSeedNodeGetsThemAndTheRedactedUrlHidesThem() {
        RedisSettings s = RedisSettings.of("redis+cluster://app:s3cret@10.0.0.1:7000,10.0.0.2:7001?timeout=5s");
        var uris = RedisEndpoints.of(s.uri(), s.mode());
        assertEquals(2, uris.size());
        assertEquals("10.0.0.2", uris.get(1).getHost());
        assertEquals(7001, uris.get(1).getPort());
        var credentials =
                uris.get(1).getCredentialsProvider().resolveCredentials().block();
        assertEquals("app", credentials.getUsername());
        assertEquals("s3cret", new String(credentials.getPassword()));
        assertFalse(s.redactedUri().contains("s3cret"), s.redactedUri());
    }

    @Test
    void givenTheMode_thenTheKeyLayoutIsTheSeedsOrPerQueueTags() {
        assertEquals("backstage:default", RedisKeys.of("backstage", RedisMode.STANDALONE).stream("default"));
        assertEquals("backstage:default", RedisKeys.of("backstage", RedisMode.SENTINEL).stream("default"));
        RedisKeys tagged = RedisKeys.of("backstage", RedisMode.CLUSTER);
        assertEquals("{backstage:default}", tagged.stream("default"));
        assertEquals("{backstage:default}:dead-letter", tagged.deadLetter("default"));
        assertEquals("{backstage:default}:scheduled", tagged.scheduled("default"));
        assertEquals("{backstage:default}:error:1-0", tagged.error(tagged.stream("default"), "1-0"));
        assertEquals("{backstage:topic:news}:sub:a:dead-letter", tagged.topicDeadLetter("news", "sub:a"));
        assertEquals("default", tagged.queueOf("{backstage:default}"));
        RedisKeys braced = RedisKeys.of("{backstage}", RedisMode.CLUSTER);
        assertEquals("{backstage}:default", braced.stream("default"));
        assertEquals("{backstage}:scheduled", braced.scheduled("default"));
    }
}
