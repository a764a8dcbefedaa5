package dev.backstage.runtime.rabbitmq;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.DefaultConsumer;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.OutgoingJob;
import dev.backstage.runtime.spi.QueueBacklog;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The backlog probe's ready / in-flight / dead-letter figures against what the real rabbitmqctl lists. */
@Tag("broker")
class RabbitMqBacklogProbeCliTest {
    private final RabbitMqTestBroker broker = new RabbitMqTestBroker();
    private final RabbitMqCtl rabbitmqctl = new RabbitMqCtl();

    @AfterEach
    void cleanUp() throws Exception {
        broker.close();
    }

    @Test
    void givenReadyUnackedAndDeadMessages_thenTheProbeMatchesRabbitmqctlListQueues() throws Exception {
        RabbitMqProvider provider = broker.provider("probe");
        for (int i = 0; i < 5; i++) {
            provider.jobs().publish(OutgoingJob.fresh("orders", "t", "{\"n\":" + i + "}", JobMeta.NONE));
        }
        broker.publishRaw(broker.queue("orders.dead-letter"), "{\"taskName\":\"t\",\"error\":\"boom\"}");
        // A consumer that takes two and never acks: they stay unacknowledged (in flight) while it is open.
        Channel holder = broker.channel();
        holder.basicQos(2);
        holder.basicConsume(broker.queue("orders"), false, new DefaultConsumer(holder));

        String orders = broker.queue("orders");
        String dead = broker.queue("orders.dead-letter");
        await("rabbitmqctl shows 3 ready + 2 unacked")
                .atMost(Duration.ofMinutes(2))
                .untilAsserted(() -> assertEquals(
                        new RabbitMqCtl.QueueRow(3, 2),
                        rabbitmqctl.listQueues(broker.prefix).get(orders)));
        // In flight comes from the management API, which the broker refreshes every statistics interval (later on a
        // loaded broker): wait for it to agree; the deadline only stops a test whose figures never come.
        QueueBacklog[] probe = new QueueBacklog[1];
        await("the probe agrees with rabbitmqctl")
                .atMost(Duration.ofMinutes(5))
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> {
                    probe[0] = provider.backlogProbe()
                            .measure(List.of("orders"), "ignored")
                            .queues()
                            .get(0);
                    Map<String, RabbitMqCtl.QueueRow> listed = rabbitmqctl.listQueues(broker.prefix);
                    assertEquals(listed.get(orders).ready(), probe[0].undelivered(), "messages_ready");
                    assertEquals(listed.get(orders).unacknowledged(), probe[0].inFlight(), "messages_unacknowledged");
                    assertEquals(
                            listed.get(dead).ready() + listed.get(dead).unacknowledged(),
                            probe[0].deadLetters(),
                            "the dead-letter queue's depth");
                });
        System.out.println("rabbitmqctl list_queues: " + rabbitmqctl.listQueues(broker.prefix));
        assertEquals(3, probe[0].undelivered());
        assertEquals(2, probe[0].inFlight());
        assertEquals(1, probe[0].deadLetters());
        assertTrue(probe[0].note().contains("management API"), probe[0].note());
        holder.close();
    }
}
