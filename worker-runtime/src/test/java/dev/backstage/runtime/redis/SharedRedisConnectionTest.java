package dev.backstage.runtime.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.spi.BacklogReport;
import dev.backstage.runtime.spi.DeclaredObject;
import dev.backstage.runtime.spi.OutgoingJob;
import dev.backstage.runtime.spi.TopologyRequest;
import dev.backstage.testsupport.UniqueNames;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Providers on one Redis URL share one non-blocking connection, as the broker itself counts them (CLIENT LIST): the
 * operator's declaring and probing providers of many topologies cost one connection, not two per topology.
 */
@Tag("broker")
class SharedRedisConnectionTest {

    @Test
    void givenManyProvidersOnOneUrl_thenTheyAreOneConnection_andClosingOneKeepsTheOthersWorking() {
        String name = UniqueNames.prefix("shared");
        // The client name is part of the URL, so this test's connections are told apart from every other client.
        String url = RedisTestSupport.URL + "?clientName=" + name;
        try (RedisTestSupport redis = new RedisTestSupport()) {
            List<RedisProvider> providers = new ArrayList<>();
            try {
                for (int i = 0; i < 6; i++) {
                    RedisProvider provider =
                            RedisProvider.connect(RedisSettings.of(url).withPrefix(redis.prefix()));
                    providers.add(provider);
                    // Each provider declares and probes, as the operator's two per topology do.
                    List<DeclaredObject> declared = provider.declarer()
                            .declare(new TopologyRequest(
                                    List.of(TopologyRequest.QueueSpec.named("q" + i)),
                                    List.of(),
                                    false,
                                    "backstage-workers"));
                    assertTrue(
                            declared.stream().noneMatch(o -> o.state() == DeclaredObject.State.FAILED),
                            declared.toString());
                    provider.backlogProbe().measure(List.of("q" + i), "backstage-workers");
                }
                assertEquals(1, connectionsNamed(redis, name), redis.redis().clientList());

                // The first five users go; the last one still publishes and measures on the same connection.
                for (RedisProvider provider : providers.subList(0, 5)) {
                    provider.close();
                }
                providers.get(0).close(); // closing twice takes nothing from the others
                RedisProvider last = providers.get(5);
                last.jobs().publish(OutgoingJob.fresh("q5", "send", "{}", null));
                BacklogReport report = last.backlogProbe().measure(List.of("q5"), "backstage-workers");
                assertEquals(1, report.undelivered(), report.toString());
                assertTrue(last.health().up(), last.health().detail());
                assertEquals(1, connectionsNamed(redis, name), redis.redis().clientList());
            } finally {
                providers.forEach(RedisProvider::close);
            }
            // The last user's close closes it on the broker.
            await().atMost(Duration.ofSeconds(20)).until(() -> connectionsNamed(redis, name) == 0);
        }
    }

    @Test
    void givenAProviderOpenedAfterTheLastClose_thenItConnectsAgain() {
        String name = UniqueNames.prefix("reopen");
        String url = RedisTestSupport.URL + "?clientName=" + name;
        try (RedisTestSupport redis = new RedisTestSupport()) {
            RedisProvider.connect(RedisSettings.of(url).withPrefix(redis.prefix()))
                    .close();
            await().atMost(Duration.ofSeconds(20)).until(() -> connectionsNamed(redis, name) == 0);
            try (RedisProvider again =
                    RedisProvider.connect(RedisSettings.of(url).withPrefix(redis.prefix()))) {
                assertTrue(again.health().up(), again.health().detail());
                assertEquals(1, connectionsNamed(redis, name), redis.redis().clientList());
            }
        }
    }

    @Test
    void givenAFailedConnect_thenItIsNotKept_soTheNextProviderTriesAgain() throws Exception {
        int port;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            port = socket.getLocalPort(); // closed again: nothing listens there
        }
        String url = "redis://127.0.0.1:" + port + "?clientName=" + UniqueNames.prefix("refused");
        int before = SharedRedisConnection.open();
        for (int attempt = 0; attempt < 2; attempt++) {
            RuntimeException e =
                    assertThrows(RuntimeException.class, () -> RedisProvider.connect(RedisSettings.of(url)));
            assertTrue(e.getMessage().contains(":" + port), e.getMessage());
            assertEquals(before, SharedRedisConnection.open(), "a failed attempt leaves no shared connection behind");
        }
    }

    /** The broker's count of connections that carry {@code name} (CLIENT LIST). */
    static long connectionsNamed(RedisTestSupport redis, String name) {
        return redis.redis()
                .clientList()
                .lines()
                .filter(line -> line.contains(" name=" + name + " "))
                .count();
    }
}
