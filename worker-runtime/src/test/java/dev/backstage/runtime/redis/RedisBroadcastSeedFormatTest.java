package dev.backstage.runtime.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.Capability;
import dev.backstage.runtime.api.CapabilityMissingException;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.spi.Provider;
import io.lettuce.core.Consumer;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.XReadArgs.StreamOffset;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Broadcast on one Redis node: the seed wire format (docs/wire-format.md) both ways, read and written with the real
 * {@code redis-cli}, the core's wiring (a task module's handler, a provider without broadcast) and the cleanup of dead
 * workers' groups after seconds of idleness (its passes run in every mode in {@link RedisBroadcastTest}). None of it
 * depends on the connection mode (the stream is the one key {@code <prefix>:broadcast} everywhere), so it runs once,
 * on one node; {@link RedisBroadcastTest} runs the listeners' behaviour in every mode.
 */
@Tag("broker")
class RedisBroadcastSeedFormatTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private final RedisTestSupport redis = new RedisTestSupport();
    private final RedisCli cli = new RedisCli(RedisTestSupport.URL);
    private final List<Worker> workers = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeRedis() {
        workers.forEach(Worker::close);
        redis.close();
    }

    private String stream() {
        return redis.prefix() + ":broadcast";
    }

    private Worker.Builder builder() {
        return Worker.builder().provider(redis.provider()).queues("default");
    }

    @Test
    void givenAJavaBroadcast_thenTheStreamEntryIsTheSeedsThreeFieldsInTsOrder() {
        Worker worker = builder().consumerId("golden").build();
        workers.add(worker);
        String id = worker.broadcast("cache.invalidate", Map.of("key", "user:1"));
        List<StreamMessage<String, String>> entries = redis.redis().xrange(stream(), Range.create("-", "+"));
        assertEquals(1, entries.size());
        StreamMessage<String, String> m = entries.get(0);
        assertEquals(id, m.getId());
        String enqueuedAt = m.getBody().get("enqueuedAt");
        assertTrue(enqueuedAt.matches("\\d{13}"), enqueuedAt);
        assertEquals(
                "taskName=cache.invalidate payload={\"key\":\"user:1\"} enqueuedAt=" + enqueuedAt,
                m.getBody().entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .collect(Collectors.joining(" ")));
        // The same bytes as redis-cli shows them: field, value, field, value … after the entry id.
        assertEquals(
                List.of(
                        id,
                        "taskName",
                        "cache.invalidate",
                        "payload",
                        "{\"key\":\"user:1\"}",
                        "enqueuedAt",
                        enqueuedAt),
                cli.run("XRANGE", stream(), "-", "+"));
    }

    @Test
    void givenASeedListenerGroup_thenItReadsAJavaBroadcastAsTheSeedParsesIt() {
        // What a seed master listener does (docs/wire-format.md): its own group created at 0 with MKSTREAM, XREADGROUP
        // '>'.
        cli.run("XGROUP", "CREATE", stream(), "broadcast-seed-go", "0", "MKSTREAM");
        Worker worker = builder().consumerId("sender").build();
        workers.add(worker);
        worker.broadcast("config.reload", Map.of("version", 2));
        List<StreamMessage<String, String>> read = redis.redis()
                .xreadgroup(
                        Consumer.from("broadcast-seed-go", "seed-go"),
                        XReadArgs.Builder.count(10),
                        StreamOffset.lastConsumed(stream()));
        assertEquals(1, read.size());
        Map<String, String> body = read.get(0).getBody();
        assertEquals("config.reload", body.get("taskName"));
        assertEquals("{\"version\":2}", body.get("payload"));
        assertTrue(Long.parseLong(body.get("enqueuedAt")) > 1_700_000_000_000L);
        assertEquals(Set.of("taskName", "payload", "enqueuedAt"), body.keySet());
    }

    @Test
    void givenSeedWrittenEntries_thenAJavaWorkerRunsThemAndAcksEach() {
        List<String> seen = new CopyOnWriteArrayList<>();
        Worker worker = builder().consumerId("java-1").build();
        workers.add(worker);
        worker.onBroadcast(
                "cache.invalidate",
                Map.class,
                (ctx, p) -> seen.add(ctx.task() + " " + p.get("key") + " "
                        + ctx.sentAt().toEpochMilli() + " " + ctx.messageId().matches("\\d+-\\d+")));
        worker.start();
        // The TS golden line of docs/wire-format.md, byte for byte, through the real redis-cli.
        cli.run(
                "XADD",
                stream(),
                "*",
                "taskName",
                "cache.invalidate",
                "payload",
                "{\"key\":\"user:1\"}",
                "enqueuedAt",
                "1718900000000");
        // The Go producer: map order, so any field order.
        cli.run(
                "XADD",
                stream(),
                "*",
                "enqueuedAt",
                "1718900000001",
                "payload",
                "{\"key\":\"user:2\"}",
                "taskName",
                "cache.invalidate");
        // An _init guard entry (never written by anyone; skipped and acked), then a task this worker does not handle.
        cli.run("XADD", stream(), "*", "_init", "1");
        cli.run("XADD", stream(), "*", "taskName", "other.service", "payload", "{}", "enqueuedAt", "1718900000002");
        await().atMost(WAIT).until(() -> seen.size() == 2);
        assertEquals(
                List.of("cache.invalidate user:1 1718900000000 true", "cache.invalidate user:2 1718900000001 true"),
                seen.stream().sorted().toList());
        await().atMost(WAIT).untilAsserted(() -> {
            Map<String, String> group = cli.xinfoGroup(stream(), "broadcast-java-1");
            assertEquals("0", group.get("pending"), "every entry acked: " + group);
            assertEquals("0", group.get("lag"), group.toString());
        });
    }

    @Test
    void givenATaskModuleThatRegistersABroadcastHandler_thenTheContainerWorkerListens() {
        List<String> seen = new CopyOnWriteArrayList<>();
        Worker worker = builder().consumerId("module").build();
        workers.add(worker);
        new dev.backstage.runtime.main.ModuleBinder(worker)
                .install(binder -> binder.broadcast(
                        "config.reload", Map.class, (ctx, p) -> seen.add(ctx.task() + "=" + p.get("version"))));
        worker.start();
        worker.broadcast("config.reload", Map.of("version", 7));
        await().atMost(WAIT).until(() -> seen.equals(List.of("config.reload=7")));
    }

    @Test
    void givenAProviderWithoutBroadcast_thenRegistrationAndSendFailWithTheFix() {
        RedisProvider inner = redis.provider();
        Provider jobsOnly = new JobsOnlyProvider(inner);
        Worker worker = Worker.builder().provider(jobsOnly).queues("default").build();
        workers.add(worker);
        CapabilityMissingException e = assertThrows(
                CapabilityMissingException.class,
                () -> worker.onBroadcast("cache.invalidate", Map.class, (ctx, p) -> {}));
        assertEquals(Capability.BROADCAST, e.capability());
        assertEquals(
                "provider 'jobs-only' does not supply the 'broadcast' capability: use a provider with broadcast"
                        + " (redis, rabbitmq, kafka) or supply one with Worker.builder().broadcast(...)",
                e.getMessage());
        assertThrows(CapabilityMissingException.class, () -> worker.broadcast("cache.invalidate", Map.of()));
        assertEquals(0, redis.redis().exists(stream()), "nothing was written");
        assertTrue(worker.capabilityReport().contains("broadcast MISSING"), worker.capabilityReport());
    }

    @Test
    void givenStaleGroupsOfDeadWorkers_thenAListenerDestroysThemAndKeepsLiveOnes() {
        // A dead worker's group with no consumer, one whose consumer went quiet, and a group that is not a
        // broadcast group at all (never touched).
        cli.run("XGROUP", "CREATE", stream(), "broadcast-dead-1", "$", "MKSTREAM");
        cli.run("XADD", stream(), "*", "taskName", "t", "payload", "{}", "enqueuedAt", "1718900000000"); // unread by it
        cli.run("XGROUP", "CREATE", stream(), "broadcast-dead-2", "$");
        cli.run("XGROUP", "CREATECONSUMER", stream(), "broadcast-dead-2", "dead-2");
        cli.run("XGROUP", "CREATE", stream(), "someone-else", "$");
        List<String> seen = new CopyOnWriteArrayList<>();
        RedisProvider provider = redis.provider();
        // A short idle threshold, above the 1 s blocking read, so a live listener is never taken for dead.
        RedisBroadcast broadcast = new RedisBroadcast(provider, Duration.ofSeconds(3), Duration.ofMillis(200));
        Worker live = Worker.builder()
                .provider(provider)
                .broadcast(broadcast)
                .consumerId("live")
                .queues("default")
                .build();
        workers.add(live);
        live.onBroadcast("cache.invalidate", Map.class, (ctx, p) -> seen.add("x"));
        live.start();
        Worker other = builder().consumerId("other").build();
        workers.add(other);
        other.onBroadcast("cache.invalidate", Map.class, (ctx, p) -> seen.add("y"));
        other.start();
        assertTrue(live.capabilityReport().contains("broadcast from redis (supplied)"), live.capabilityReport());

        // dead-2 goes only once its consumer has been idle for 3 s: the pass that removed it also saw the live
        // listeners' groups (as old as dead-2) and kept them, since their consumers read every second.
        await().atMost(WAIT).until(() -> groups().equals(Set.of("broadcast-live", "broadcast-other", "someone-else")));
        live.broadcast("cache.invalidate", Map.of());
        await().atMost(WAIT).until(() -> seen.size() == 2);

        // The stopped worker's group goes too, once its consumer has been idle past the threshold.
        other.close();
        await().atMost(WAIT).until(() -> groups().equals(Set.of("broadcast-live", "someone-else")));
    }

    private Set<String> groups() {
        return cli.xinfoGroups(stream()).stream().map(g -> g.get("name")).collect(Collectors.toSet());
    }
}
