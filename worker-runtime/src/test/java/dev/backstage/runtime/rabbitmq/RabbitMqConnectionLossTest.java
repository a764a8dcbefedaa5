package dev.backstage.runtime.rabbitmq;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.OutgoingJob;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Connection loss, made real by force-closing the client's connection through the management API (what a
 * broker restart, an operator or a network cut does): the broker requeues unacked work, amqp-client
 * reconnects, consumers resubscribe, and the worker never stops.
 */
@Tag("broker")
class RabbitMqConnectionLossTest {
    private final RabbitMqTestBroker broker = new RabbitMqTestBroker();

    @AfterEach
    void cleanUp() throws Exception {
        broker.close();
    }

    record Handled(String worker, String payload, int deliveryCount, String jobId) {}

    @Test
    void givenAWorkerWhoseChannelClosesMidJob_thenTheJobIsRedeliveredAndCompletedByAnotherWorker() throws Exception {
        List<Handled> done = new CopyOnWriteArrayList<>();
        CountDownLatch aStarted = new CountDownLatch(1);
        CountDownLatch releaseA = new CountDownLatch(1);
        Worker a = broker.own(broker.worker("a").concurrency(1).build());
        a.register("job", String.class, (ctx, payload) -> {
            if (payload.equals("stuck")) {
                aStarted.countDown();
                releaseA.await(60, TimeUnit.SECONDS); // mid-job when its connection goes away
            }
            done.add(new Handled("a", payload, ctx.deliveryCount(), ctx.jobId()));
            return Next.done();
        });
        a.start();
        String jobId = a.enqueue("job", "stuck").id();
        assertTrue(aStarted.await(20, TimeUnit.SECONDS), "worker a took the job");

        Worker b = broker.own(broker.worker("b").concurrency(1).build());
        b.register("job", String.class, (ctx, payload) -> {
            done.add(new Handled("b", payload, ctx.deliveryCount(), ctx.jobId()));
            return Next.done();
        });
        b.start();
        RabbitMqProvider providerA = providerOf("a");
        broker.awaitConnectionListed(broker.prefix + "-a/consume");
        assertEquals(1, broker.closeConnectionsNamed(broker.prefix + "-a/consume"));

        await("b completes the redelivered job")
                .atMost(Duration.ofSeconds(30))
                .until(() -> done.stream().anyMatch(h -> h.worker().equals("b")));
        Handled byB =
                done.stream().filter(h -> h.worker().equals("b")).findFirst().orElseThrow();
        assertEquals(new Handled("b", "stuck", 2, jobId), byB, "redelivered flag counts: delivery 2, same job id");

        await("a recovers")
                .atMost(Duration.ofSeconds(30))
                .until(() -> providerA.health().up());
        assertTrue(a.isRunning(), "the worker kept running through the outage");
        releaseA.countDown(); // a's late settlement must not ack anything: its channel is gone
        await().atMost(Duration.ofSeconds(60)).until(() -> a.inFlight() == 0);

        b.close();
        a.enqueue("job", "after recovery");
        await("a consumes again after resubscribing")
                .atMost(Duration.ofSeconds(30))
                .until(() -> done.stream()
                        .anyMatch(h -> h.payload().equals("after recovery")
                                && h.worker().equals("a")));
        a.close();
        assertEquals(0, broker.ready(broker.queue("default")));
    }

    /** The worker built by {@link RabbitMqTestBroker#worker} owns its provider; find it by connection role. */
    private RabbitMqProvider providerOf(String role) {
        return broker.ownedProviders().stream()
                .filter(p -> p.settings().connectionName().equals(broker.prefix + "-" + role))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void givenTheConnectionIsDown_thenHealthSaysSoAndPublishFailsClearly_andBothRecover() throws Exception {
        RabbitMqProvider provider = broker.provider("p", Map.of(RabbitMqSettings.OPTION_RECOVERY_INTERVAL_MS, "3000"));
        OutgoingJob job = OutgoingJob.fresh("default", "t", "1", JobMeta.NONE);
        provider.jobs().publish(job);
        assertTrue(provider.health().up());
        broker.awaitConnectionListed(broker.prefix + "-p/publish");

        assertEquals(1, broker.closeConnectionsNamed(broker.prefix + "-p/publish"));
        await("health reports the outage")
                .atMost(Duration.ofSeconds(60))
                .until(() -> !provider.health().up());
        assertTrue(
                provider.health().detail().contains("publish connection down"),
                provider.health().detail());
        BrokerUnavailableException error = assertThrows(
                BrokerUnavailableException.class, () -> provider.jobs().publish(job));
        assertTrue(error.getMessage().contains("unreachable"), error.getMessage());

        await("recovered")
                .atMost(Duration.ofSeconds(30))
                .until(() -> provider.health().up());
        await("publishing works again")
                .atMost(Duration.ofSeconds(60))
                .ignoreExceptions()
                .until(() -> provider.jobs().publish(job) != null);
        assertFalse(broker.ready(broker.queue("default")) < 2, "both successful publishes are in the queue");
    }
}
