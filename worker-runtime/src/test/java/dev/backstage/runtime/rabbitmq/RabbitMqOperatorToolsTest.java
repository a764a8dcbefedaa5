package dev.backstage.runtime.rabbitmq;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.spi.BacklogUnavailableException;
import dev.backstage.runtime.spi.ConfigurationException;
import dev.backstage.runtime.spi.DeadLetterEntry;
import dev.backstage.runtime.spi.DeclaredObject;
import dev.backstage.runtime.spi.DeclaredObject.State;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.OutgoingJob;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.Providers;
import dev.backstage.runtime.spi.QueueBacklog;
import dev.backstage.runtime.spi.TopologyRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** What the operator and the CLI use through the SPI: factory, declarer, backlog probe, dead letters. */
@Tag("broker")
class RabbitMqOperatorToolsTest {
    private final RabbitMqTestBroker broker = new RabbitMqTestBroker();

    @AfterEach
    void cleanUp() throws Exception {
        broker.close();
    }

    private static TopologyRequest topology(boolean topics) {
        return new TopologyRequest(
                List.of(TopologyRequest.QueueSpec.named("orders"), TopologyRequest.QueueSpec.named("emails")),
                topics ? List.of("events") : List.of(),
                true,
                null);
    }

    private static State stateOf(List<DeclaredObject> objects, String name) {
        return objects.stream()
                .filter(o -> o.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError(name + " not reported in " + objects))
                .state();
    }

    @Test
    void givenTheNameRabbitmq_thenTheServiceLoaderCreatesTheProvider_andUnknownOptionsAreRejected() {
        Provider provider = broker.own(Providers.create(broker.settings("factory", Map.of())));
        assertInstanceOf(RabbitMqProvider.class, provider);
        assertEquals("rabbitmq", provider.name());
        ConfigurationException error = assertThrows(
                ConfigurationException.class,
                () -> Providers.create(broker.settings("factory", Map.of("delayedExchnage", "auto"))));
        assertTrue(error.getMessage().contains("delayedExchnage"), error.getMessage());
    }

    @Test
    void givenATopology_whenDeclaredTwiceInspectedAndDeleted_thenEachObjectsStateIsReported() throws Exception {
        RabbitMqProvider provider = broker.provider("p"); // no plugin here: the fallback ladder, declared on first use
        String ladder = broker.prefix + ".delay-level.*";
        assertEquals(
                State.MISSING,
                stateOf(provider.declarer().inspect(topology(true)), ladder),
                "opening a provider (a CLI inspect, a probe) declares nothing");

        List<DeclaredObject> first = provider.declarer().declare(topology(true));
        assertEquals(State.CREATED, stateOf(first, broker.queue("orders")));
        assertEquals(State.CREATED, stateOf(first, broker.queue("emails.dead-letter")));
        assertEquals(State.CREATED, stateOf(first, broker.queue("topics")));
        assertEquals(State.CREATED, stateOf(first, ladder));

        List<DeclaredObject> second = provider.declarer().declare(topology(true));
        assertTrue(second.stream().allMatch(o -> o.state() == State.EXISTED), second.toString());

        broker.channel().queueDelete(broker.queue("emails"));
        broker.channel().queueDelete(broker.prefix + ".delay-level.07");
        List<DeclaredObject> inspected = provider.declarer().inspect(topology(true));
        assertEquals(State.MISSING, stateOf(inspected, broker.queue("emails")));
        assertEquals(State.EXISTED, stateOf(inspected, broker.queue("orders")));
        DeclaredObject ladderState = inspected.stream()
                .filter(o -> o.name().equals(ladder))
                .findFirst()
                .orElseThrow();
        assertEquals(State.MISSING, ladderState.state());
        assertTrue(ladderState.detail().contains("delay-level.07"), ladderState.detail());

        List<DeclaredObject> deleted = provider.declarer().delete(topology(true));
        assertEquals(State.DELETED, stateOf(deleted, broker.queue("orders")));
        assertEquals(State.MISSING, stateOf(deleted, broker.queue("emails")));
        assertEquals(State.DELETED, stateOf(deleted, ladder));
        assertTrue(provider.declarer().inspect(topology(true)).stream().allMatch(o -> o.state() == State.MISSING));

        assertEquals(State.CREATED, stateOf(provider.declarer().declare(topology(true)), ladder));
    }

    @Test
    void givenReadyInFlightAndDeadJobs_thenReadyAndDeadAreCountedAtOnceAndInFlightFromTheManagementApi()
            throws Exception {
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Worker worker =
                broker.own(broker.worker("w").queues("orders").concurrency(1).build());
        worker.register("hold", String.class, (ctx, s) -> {
            holding.countDown();
            release.await(5, TimeUnit.MINUTES);
            return Next.done();
        });
        worker.start();
        RabbitMqProvider provider = broker.provider("probe");
        for (int i = 0; i < 3; i++) {
            provider.jobs().publish(OutgoingJob.fresh("orders", "hold", "\"" + i + "\"", JobMeta.NONE));
        }
        broker.publishRaw(broker.queue("orders.dead-letter"), "{\"taskName\":\"x\",\"error\":\"old\"}");
        assertTrue(holding.await(2, TimeUnit.MINUTES), "the worker took a job");

        // Ready and dead letters come from the queues themselves (AMQP), whatever the statistics interval: at once.
        QueueBacklog now = provider.backlogProbe()
                .measure(List.of("orders"), "ignored")
                .queues()
                .get(0);
        assertEquals(1, now.deadLetters());
        assertTrue(
                now.undelivered() >= broker.ready(broker.queue("orders")),
                "never fewer ready than the queue holds: " + now.undelivered());

        // In flight and the head timestamp exist only in the broker's statistics: wait for the management API itself
        // to report them (emitted every collect_statistics_interval, later on a loaded broker), then measure once.
        String orders = broker.queue("orders");
        await("management API figures of " + orders)
                .atMost(Duration.ofMinutes(5))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> {
                    JsonNode q = broker.queueInfo(orders);
                    return q.path("messages_ready").asLong(-1) == 2
                            && q.path("messages_unacknowledged").asLong(-1) == 1
                            && q.path("head_message_timestamp").isNumber();
                });
        QueueBacklog backlog = provider.backlogProbe()
                .measure(List.of("orders"), "ignored")
                .queues()
                .get(0);
        assertEquals(2, backlog.undelivered());
        assertEquals(1, backlog.inFlight());
        assertEquals(1, backlog.deadLetters());
        assertTrue(backlog.note().contains("management API"), backlog.note());
        assertTrue(backlog.oldestAgeMs() != null && backlog.oldestAgeMs() >= 0, "head message age from its timestamp");
        release.countDown();
    }

    @Test
    void givenAQueueThatDoesNotExist_whenMeasured_thenTheProbeSaysSoInsteadOfReportingZero() {
        RabbitMqProvider provider = broker.provider("probe");
        provider.jobs().publish(OutgoingJob.fresh("orders", "t", "1", JobMeta.NONE));

        BacklogUnavailableException error = assertThrows(
                BacklogUnavailableException.class,
                () -> provider.backlogProbe().measure(List.of("orders", "ordres"), "ignored"));
        assertEquals(RabbitMqBacklogProbe.QUEUE_NOT_FOUND, error.reason());
        assertTrue(error.getMessage().contains("no queue " + broker.queue("ordres") + " "), error.getMessage());
        assertTrue(error.getMessage().contains("check the queue names"), error.getMessage());
        assertEquals(1, error.getMessage().lines().count(), "one line");
        assertTrue(
                broker
                        .provider("declarer")
                        .declarer()
                        .inspect(new TopologyRequest(
                                List.of(TopologyRequest.QueueSpec.named("ordres")), List.of(), true, null))
                        .stream()
                        .allMatch(o -> o.state() == State.MISSING),
                "measuring declared nothing");
    }

    @Test
    void givenJobsPublishedAndSettled_thenTheProbeReportsThePublishAndAckCountersAsArrivalsAndCompletions()
            throws Exception {
        CountDownLatch handled = new CountDownLatch(4);
        Worker worker = broker.worker("w").queues("orders").concurrency(2).build();
        worker.register("t", String.class, (ctx, s) -> {
            handled.countDown();
            return Next.done();
        });
        worker.start();
        RabbitMqProvider provider = broker.provider("probe");
        for (int i = 0; i < 4; i++) {
            provider.jobs().publish(OutgoingJob.fresh("orders", "t", "\"" + i + "\"", JobMeta.NONE));
        }
        assertTrue(handled.await(2, TimeUnit.MINUTES), "the worker ran the first four");
        worker.close(); // the next three stay ready
        for (int i = 0; i < 3; i++) {
            provider.jobs().publish(OutgoingJob.fresh("orders", "t", "\"later\"", JobMeta.NONE));
        }

        // The counters exist only in the broker's statistics, a refresh behind the queue; the acks are counted from
        // the consumer's channel statistics, which can reach the queue's figures one emission later than the
        // publishes (seen on a loaded machine: publish 7 with ack still 0), so both are waited for.
        QueueBacklog backlog = awaitBacklog(
                provider,
                "orders",
                b -> b.undelivered() == 3
                        && Long.valueOf(7).equals(b.enqueuedTotal())
                        && b.completedTotal() != null
                        && b.completedTotal() >= 4);
        assertEquals(4L, backlog.completedTotal(), "four settled (acked), three still waiting");
        assertEquals(0, backlog.inFlight());
        assertTrue(backlog.note().contains("publish and ack counters"), backlog.note());
    }

    @Test
    void givenTheManagementApiIsOff_thenOnlyReadyMessagesAreCountedAndTheNoteSaysSo() throws Exception {
        RabbitMqProvider provider = broker.provider("probe", Map.of(RabbitMqSettings.OPTION_MANAGEMENT_URL, "off"));
        provider.jobs().publish(OutgoingJob.fresh("orders", "t", "1", JobMeta.NONE));
        provider.jobs().publish(OutgoingJob.fresh("orders", "t", "2", JobMeta.NONE));

        QueueBacklog backlog = provider.backlogProbe()
                .measure(List.of("orders"), "ignored")
                .queues()
                .get(0);
        assertEquals(2, backlog.undelivered());
        assertEquals(-1, backlog.inFlight());
        assertTrue(backlog.note().contains("only ready messages"), backlog.note());
        assertTrue(backlog.note().contains("rabbitmq-plugins enable rabbitmq_management"), backlog.note());
    }

    @Test
    void givenAnUnreachableManagementApi_thenTheProbeFallsBackToAmqpAndSaysWhy() {
        RabbitMqProvider provider =
                broker.provider("probe", Map.of(RabbitMqSettings.OPTION_MANAGEMENT_URL, "http://127.0.0.1:1"));
        provider.jobs().publish(OutgoingJob.fresh("orders", "t", "1", JobMeta.NONE));
        QueueBacklog backlog = provider.backlogProbe()
                .measure(List.of("orders"), "ignored")
                .queues()
                .get(0);
        assertEquals(1, backlog.undelivered());
        assertEquals(-1, backlog.inFlight());
        assertTrue(backlog.note().contains("unreachable"), backlog.note());
    }

    private static QueueBacklog awaitBacklog(RabbitMqProvider provider, String queue, Predicate<QueueBacklog> ready) {
        QueueBacklog[] last = new QueueBacklog[1];
        // Figures that exist only in the broker's statistics, emitted every collect_statistics_interval (5 s by
        // default) and later on a loaded broker (past 30 s at load ~12). The wait is for the figures themselves, not
        // for an interval: the deadline only stops a test whose figures never come, whatever the machine's speed.
        await("backlog of " + queue)
                .atMost(Duration.ofMinutes(5))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> {
                    last[0] = provider.backlogProbe()
                            .measure(List.of(queue), "ignored")
                            .queues()
                            .get(0);
                    return ready.test(last[0]);
                });
        return last[0];
    }

    @Test
    void givenDeadLetters_whenListedThenRedriven_thenListingIsNonDestructiveAndRedrivenJobsRunAfresh()
            throws Exception {
        List<String> ids = new CopyOnWriteArrayList<>();
        List<Integer> counts = new CopyOnWriteArrayList<>();
        AtomicBoolean healthy = new AtomicBoolean(false);
        // One at a time, so jobs reach the dead-letter queue (and come back) in the order they were enqueued.
        Worker worker =
                broker.own(broker.worker("w").maxDeliveries(1).concurrency(1).build());
        worker.register("fragile", String.class, (ctx, s) -> {
            if (!healthy.get()) {
                throw new IllegalStateException("downstream unavailable");
            }
            ids.add(ctx.jobId());
            counts.add(ctx.deliveryCount());
            return Next.done();
        });
        worker.start();
        String first = worker.enqueue("fragile", "one").id();
        String second = worker.enqueue("fragile", "two").id();
        RabbitMqProvider admin = broker.provider("admin");
        await().atMost(Duration.ofMinutes(2)).until(() -> admin.deadLetters().count("default") == 2);

        List<DeadLetterEntry> listed = admin.deadLetters().list("default", 10);
        assertEquals(
                List.of(first, second), listed.stream().map(DeadLetterEntry::id).toList(), "oldest first");
        assertTrue(listed.get(0).error().contains("downstream unavailable"));
        assertEquals(2, listed.get(0).deliveryCount());
        assertEquals("\"one\"", listed.get(0).payloadJson());
        assertEquals(
                List.of(first),
                admin.deadLetters().list("default", 1).stream()
                        .map(DeadLetterEntry::id)
                        .toList());
        assertEquals(2, admin.deadLetters().count("default"), "listing put every entry back");

        healthy.set(true);
        assertEquals(2, admin.deadLetters().redrive("default", 10));
        await().atMost(Duration.ofMinutes(2)).until(() -> ids.size() == 2);
        assertEquals(List.of(first, second), ids, "same job ids");
        assertEquals(List.of(1, 1), counts, "fresh jobs: delivery count 1");
        assertEquals(0, admin.deadLetters().count("default"));
    }
}
