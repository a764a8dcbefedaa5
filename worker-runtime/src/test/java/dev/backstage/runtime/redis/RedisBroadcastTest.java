package dev.backstage.runtime.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.BroadcastContract;
import dev.backstage.runtime.api.Worker;
import dev.backstage.testsupport.SharedBroker;
import dev.backstage.testsupport.UsesSharedBrokers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Broadcast on Redis in each connection mode (one node, the 6-node cluster, the Sentinel group): the contract, and
 * how listeners keep their groups (a cleanup pass that destroys only a group nobody reads, a destroyed group
 * recreated, a stopped run's message given again), checked on the broker's own state ({@code XINFO GROUPS},
 * {@code XPENDING}) with the real {@code redis-cli}. The broadcast stream is the one key {@code <prefix>:broadcast}
 * in every mode. The seed wire format, the core's wiring and the cleanup's timing (seconds of idle consumers), which
 * do not depend on the mode, are {@link RedisBroadcastSeedFormatTest}'s.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(RedisMode.class)
@UsesSharedBrokers({SharedBroker.REDIS_CLUSTER, SharedBroker.REDIS_SENTINEL})
@Tag("broker")
class RedisBroadcastTest extends BroadcastContract {
    private final RedisTestSupport redis;
    private final RedisCli cli;

    RedisBroadcastTest(RedisMode mode) {
        this.redis = new RedisTestSupport(mode);
        this.cli = RedisCli.of(redis);
    }

    @AfterEach
    void closeRedis() {
        workers.forEach(Worker::close);
        redis.close();
    }

    private String stream() {
        return redis.keys().broadcast();
    }

    @Override
    protected Worker.Builder builder() {
        return Worker.builder().provider(redis.provider()).queues("default");
    }

    /** One group {@code broadcast-{id}} per worker, its one consumer named {@code id}, nothing pending. */
    @Override
    protected void assertListeners(List<String> consumerIds) {
        await().atMost(WAIT).untilAsserted(() -> {
            for (String id : consumerIds) {
                Map<String, String> group = cli.xinfoGroup(stream(), "broadcast-" + id);
                assertEquals("1", group.get("consumers"), group.toString());
                assertEquals("0", group.get("pending"), group.toString());
                assertEquals("0", group.get("lag"), group.toString());
                assertEquals(
                        List.of(id),
                        redis.redis().xinfoConsumers(stream(), "broadcast-" + id).stream()
                                .map(c -> String.valueOf(((List<?>) c).get(1)))
                                .toList());
            }
        });
    }

    @Test
    void givenItsGroupDestroyedBySomeoneElse_thenTheListenerRecreatesItAndKeepsReceiving() {
        List<String> seen = new CopyOnWriteArrayList<>();
        Worker worker = started("healed", seen);
        cli.run("XGROUP", "DESTROY", stream(), "broadcast-healed"); // what a seed's cleanup may do
        // The next blocking read answers NOGROUP; the listener joins again (at the end) and reads on.
        await().atMost(WAIT).until(() -> groups().contains("broadcast-healed"));
        worker.broadcast("cache.invalidate", Map.of("key", "after-destroy"));
        await().atMost(WAIT).until(() -> seen.equals(List.of("after-destroy@1")));
        assertListeners(List.of("healed"));
    }

    @Test
    void givenAWorkerStoppedMidHandler_thenItsNextRunUnderTheSameIdGetsTheMessageAgain() throws Exception {
        java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch never = new java.util.concurrent.CountDownLatch(1);
        Worker first =
                builder().consumerId("pod-a").shutdownGrace(Duration.ZERO).build();
        first.onBroadcast("cache.invalidate", Map.class, (ctx, p) -> {
            running.countDown();
            never.await(); // interrupted at shutdown: the run never settles
        });
        first.start();
        first.broadcast("cache.invalidate", Map.of("key", "k"));
        assertTrue(running.await(30, java.util.concurrent.TimeUnit.SECONDS));
        first.close();
        assertEquals(1, cli.xpendingCount(stream(), "broadcast-pod-a"), "left pending by the stopped run");

        List<String> seen = new CopyOnWriteArrayList<>();
        started("pod-a", seen);
        await().atMost(WAIT).until(() -> seen.equals(List.of("k@2")));
        assertListeners(List.of("pod-a"));
    }

    @Test
    void givenAGroupWithNoConsumer_thenItIsDestroyedOnlyWhenTwoPassesFindEntriesWaitingForIt() {
        // A seed listener creates its group, and Redis gives it a consumer only when a read returns entries.
        cli.run("XGROUP", "CREATE", stream(), "broadcast-seed-quiet", "$", "MKSTREAM");
        cli.run("XREADGROUP", "GROUP", "broadcast-seed-quiet", "seed-1", "COUNT", "1", "STREAMS", stream(), ">");
        assertEquals("0", cli.xinfoGroup(stream(), "broadcast-seed-quiet").get("consumers"), "no consumer yet");
        RedisBroadcast.Cleanup cleanup = new RedisBroadcast(redis.provider(), Duration.ofHours(1), Duration.ofHours(1))
        .new Cleanup("broadcast-me");
        // Nothing to read: a quiet listener, kept however many passes see it.
        assertEquals(List.of(), cleanup.pass());
        assertEquals(List.of(), cleanup.pass());
        assertEquals(Set.of("broadcast-seed-quiet"), groups());

        // A broadcast arrives; a pass right then still keeps the group (its reader may be about to read it) …
        cli.run("XADD", stream(), "*", "taskName", "t", "payload", "{}", "enqueuedAt", "1718900000000");
        assertEquals(List.of(), cleanup.pass());
        // … and a live reader does read it, gets its consumer, and is kept from then on.
        cli.run("XREADGROUP", "GROUP", "broadcast-seed-quiet", "seed-1", "COUNT", "1", "STREAMS", stream(), ">");
        assertEquals(List.of(), cleanup.pass());
        assertEquals(Set.of("broadcast-seed-quiet"), groups());

        // A group nobody reads: still without a consumer while an entry waits, on two passes in a row → destroyed.
        cli.run("XGROUP", "CREATE", stream(), "broadcast-dead", "0");
        assertEquals(List.of(), cleanup.pass());
        assertEquals(List.of("broadcast-dead"), cleanup.pass());
        assertEquals(Set.of("broadcast-seed-quiet"), groups());
    }

    private Set<String> groups() {
        return cli.xinfoGroups(stream()).stream().map(g -> g.get("name")).collect(Collectors.toSet());
    }
}
