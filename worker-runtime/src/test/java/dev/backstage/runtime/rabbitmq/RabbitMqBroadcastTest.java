package dev.backstage.runtime.rabbitmq;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;
import dev.backstage.runtime.api.BroadcastContract;
import dev.backstage.runtime.api.Worker;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Broadcast on RabbitMQ: the contract, plus what {@code rabbitmqctl} shows — one exclusive, auto-delete,
 * non-durable queue per running worker bound to the fan-out exchange {@code {p}.broadcast}, and none left once a
 * worker stops.
 */
@Tag("broker")
class RabbitMqBroadcastTest extends BroadcastContract {
    private final RabbitMqTestBroker broker = new RabbitMqTestBroker();
    private final RabbitMqCtl ctl = new RabbitMqCtl();
    private final AtomicInteger roles = new AtomicInteger();

    @AfterEach
    void closeBroker() throws Exception {
        workers.forEach(Worker::close);
        broker.close();
    }

    private String exchange() {
        return broker.prefix + ".broadcast";
    }

    private String queuePrefix() {
        return broker.prefix + ".broadcast.";
    }

    @Override
    protected Worker.Builder builder() {
        return broker.worker("w" + roles.incrementAndGet());
    }

    @Override
    protected void assertListeners(List<String> consumerIds) {
        await().atMost(WAIT).untilAsserted(() -> {
            Map<String, RabbitMqCtl.QueueFlags> queues = ctl.listQueueFlags(queuePrefix());
            assertEquals(
                    consumerIds.stream().sorted().toList(),
                    queues.keySet().stream()
                            .map(q -> q.substring(queuePrefix().length(), q.lastIndexOf('-')))
                            .sorted()
                            .toList(),
                    queues.toString());
            queues.forEach((name, flags) -> {
                assertTrue(flags.exclusive() && flags.autoDelete() && !flags.durable(), name + " " + flags);
                assertEquals(0, flags.ready() + flags.unacknowledged(), name + " " + flags);
            });
            assertEquals(queues.keySet().stream().sorted().toList(), ctl.boundTo(exchange()));
        });
    }

    @Test
    void givenAStoppedWorker_thenItsQueueAndBindingAreGone() {
        List<String> seen = new CopyOnWriteArrayList<>();
        Worker stays = started("stays", seen);
        Worker leaves = started("leaves", seen);
        assertListeners(List.of("stays", "leaves"));
        leaves.close();
        assertListeners(List.of("stays"));
        stays.broadcast("cache.invalidate", Map.of("key", "k"));
        await().atMost(WAIT).until(() -> seen.equals(List.of("k@1")));
    }

    @Test
    void givenAJavaBroadcast_thenTheBodyIsJobShaped() throws Exception {
        Worker sender = builder().consumerId("sender").build();
        workers.add(sender);
        sender.broadcast("cache.invalidate", Map.of("key", "warm-up")); // declares the exchange
        Channel ch = broker.channel();
        String probe = ch.queueDeclare().getQueue(); // server-named, exclusive to the test's connection
        ch.queueBind(probe, exchange(), "");
        sender.broadcast("cache.invalidate", Map.of("key", "user:1"));
        GetResponse[] got = new GetResponse[1];
        await().atMost(WAIT).until(() -> (got[0] = ch.basicGet(probe, true)) != null);
        String body = new String(got[0].getBody(), StandardCharsets.UTF_8);
        JsonNode json = broker.json(body);
        assertEquals(
                "{\"queue\":\"broadcast\",\"taskName\":\"cache.invalidate\",\"payload\":{\"key\":\"user:1\"},"
                        + "\"enqueuedAt\":" + json.get("enqueuedAt").asLong() + ",\"meta\":{},\"deliveryCount\":1}",
                body);
        assertEquals(exchange(), got[0].getEnvelope().getExchange());
        assertEquals("application/json", got[0].getProps().getContentType());
        ch.close();
        assertTrue(json.get("enqueuedAt").asLong() > 1_700_000_000_000L);
        assertEquals(
                List.of(),
                ctl.listQueueFlags(queuePrefix()).keySet().stream().collect(Collectors.toList()),
                "a sender that listens to nothing has no broadcast queue");
    }
}
