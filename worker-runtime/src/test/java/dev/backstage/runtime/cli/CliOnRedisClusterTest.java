package dev.backstage.runtime.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.testsupport.UniqueNames;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The {@code backstage} CLI on a {@code redis+cluster://} URL (the 6-node Redis Cluster of {@code bin/lib.sh} on
 * 127.0.0.1:7000-7005): enqueue, the backlog ({@code inspect}) and dead letters list and redrive, each checked
 * against the keys under the queue's hash tag on the cluster itself.
 */
@Tag("broker")
class CliOnRedisClusterTest {
    private static final String URL = "redis+cluster://127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002";

    private static RedisClusterClient client;
    private static StatefulRedisClusterConnection<String, String> connection;
    private static RedisAdvancedClusterCommands<String, String> redis;
    private final String prefix = UniqueNames.prefix("bs-clicluster");

    @BeforeAll
    static void connect() {
        client = RedisClusterClient.create(List.of(RedisURI.create("127.0.0.1", 7000)));
        connection = client.connect();
        redis = connection.sync();
    }

    @AfterAll
    static void disconnect() {
        connection.close();
        client.shutdown();
    }

    @AfterEach
    void removeKeys() {
        for (String queue : List.of("default", "emails")) {
            redis.del(stream(queue), stream(queue) + ":dead-letter");
        }
    }

    @Test
    void givenAClusterUrl_whenJobsAreEnqueuedOnTwoQueues_thenInspectShowsEachQueuesBacklogFromItsShard() {
        CliRun orders = CliRun.of(
                "enqueue", "processOrder", "{\"orderId\":\"o1\"}", "--url", URL, "--prefix", prefix, "--count", "3");
        assertEquals(0, orders.exit(), orders.err());
        CliRun mail = CliRun.of(
                "enqueue", "mail", "{}", "--url", URL, "--prefix", prefix, "--queue", "emails", "--count", "2");
        assertEquals(0, mail.exit(), mail.err());
        assertEquals(3, redis.xlen(stream("default")), "on the shard of " + stream("default"));
        assertEquals(2, redis.xlen(stream("emails")), "on the shard of " + stream("emails"));

        CliRun table = CliRun.of("inspect", "--url", URL, "--prefix", prefix, "--queue", "default,emails");
        assertEquals(0, table.exit(), table.err());
        assertTrue(table.out().lines().anyMatch(l -> l.matches("default\\s+3\\s+0\\s+0\\s+.*")), table.out());
        assertTrue(table.out().lines().anyMatch(l -> l.matches("emails\\s+2\\s+0\\s+0\\s+.*")), table.out());
    }

    @Test
    void givenDeadLettersOnACluster_whenListedAndRedriven_thenAllMoveBackOntoTheQueueInItsSlot() {
        for (int i = 0; i < 4; i++) {
            redis.xadd(
                    stream("default") + ":dead-letter",
                    "taskName",
                    "t",
                    "payload",
                    "{\"n\":" + i + "}",
                    "enqueuedAt",
                    "1",
                    "originalId",
                    "1-" + i,
                    "deliveryCount",
                    "6",
                    "deadLetteredAt",
                    "2",
                    "error",
                    "boom");
        }
        CliRun list = CliRun.of("dead-letters", "list", "--queue", "default", "--url", URL, "--prefix", prefix);
        assertEquals(0, list.exit(), list.err());
        assertTrue(list.out().startsWith("4 dead letters on default"), list.out());
        assertTrue(list.out().contains("error=boom"), list.out());

        CliRun redrive = CliRun.of("dead-letters", "redrive", "--queue", "default", "--url", URL, "--prefix", prefix);
        assertEquals(0, redrive.exit(), redrive.err());
        assertEquals("redrove 4 jobs onto default", redrive.out().trim());
        assertEquals(0, redis.xlen(stream("default") + ":dead-letter"));
        assertEquals(4, redis.xlen(stream("default")));
    }

    @Test
    void givenAClusterUrlWithADatabaseNumber_thenOneLineSaysToDropIt() {
        CliRun run = CliRun.of("inspect", "--url", "redis+cluster://127.0.0.1:7000/2", "--prefix", prefix);
        assertEquals(1, run.err().lines().count(), run.err());
        assertTrue(run.err().contains("drop /2 from the URL"), run.err());
        assertTrue(run.exit() != 0, "exit " + run.exit());
    }

    @Test
    void givenOneNodesRedisUrlWithRedisOptionModeCluster_whenEnqueuing_thenTheJobsGoToTheQueuesSlotOnTheCluster() {
        CliRun run = CliRun.of(
                "enqueue",
                "mail",
                "{}",
                "--url",
                "redis://127.0.0.1:7000",
                "--redis-option",
                "mode=cluster",
                "--redis-option",
                "waitReplicas=1",
                "--prefix",
                prefix,
                "--queue",
                "emails",
                "--count",
                "2");
        assertEquals(0, run.exit(), run.err());
        assertEquals(2, redis.xlen(stream("emails")), "under the queue's hash tag, on its shard");

        CliRun wrong = CliRun.of("inspect", "--provider", "rabbitmq", "--redis-option", "mode=cluster");
        assertEquals(2, wrong.exit(), wrong.err());
        assertEquals(1, wrong.err().strip().lines().count(), wrong.err());
        assertTrue(wrong.err().contains("--redis-option is for --provider redis, not rabbitmq: drop it"), wrong.err());
        CliRun unknown = CliRun.of("inspect", "--url", URL, "--redis-option", "mood=cluster", "--prefix", prefix);
        assertTrue(unknown.err().contains("unknown redis option 'mood'"), unknown.err());
    }

    @Test
    void givenAPrefixInBraces_whenEnqueuingOnACluster_thenTheKeysAreTheSeedLayoutInThePrefixsOneSlot() {
        String braced = "{" + prefix + "}";
        try {
            CliRun run = CliRun.of(
                    "enqueue", "mail", "{}", "--url", URL, "--prefix", braced, "--queue", "emails", "--count", "2");
            assertEquals(0, run.exit(), run.err());
            assertEquals(2, redis.xlen(braced + ":emails"), "the seed's key, on the shard of the tag's slot");
            assertEquals(redis.clusterKeyslot(prefix), redis.clusterKeyslot(braced + ":emails"));

            CliRun table = CliRun.of("inspect", "--url", URL, "--prefix", braced, "--queue", "emails");
            assertEquals(0, table.exit(), table.err());
            assertTrue(table.out().lines().anyMatch(l -> l.matches("emails\\s+2\\s+0\\s+0\\s+.*")), table.out());
        } finally {
            redis.del(braced + ":emails");
        }
        CliRun rabbit = CliRun.of("inspect", "--provider", "rabbitmq", "--prefix", braced);
        assertEquals(2, rabbit.exit(), rabbit.err());
        assertEquals(1, rabbit.err().strip().lines().count(), rabbit.err());
        assertTrue(rabbit.err().contains("is a Redis Cluster hash tag, for provider redis only"), rabbit.err());
        assertTrue(rabbit.err().contains("drop the braces: " + prefix), rabbit.err());
    }

    private String stream(String queue) {
        return "{" + prefix + ":" + queue + "}";
    }
}
