package dev.backstage.operator.autoscaler;

import static dev.backstage.operator.autoscaler.ClusterPools.WAIT;
import static dev.backstage.operator.autoscaler.ClusterPools.autoscaledPool;
import static dev.backstage.operator.autoscaler.ClusterPools.awaitStatus;
import static dev.backstage.operator.autoscaler.ClusterPools.awaitTopologyReady;
import static dev.backstage.operator.autoscaler.ClusterPools.backlogAvailable;
import static dev.backstage.operator.autoscaler.ClusterPools.deadLettersPerQueue;
import static dev.backstage.operator.autoscaler.ClusterPools.deploymentReplicas;
import static dev.backstage.operator.autoscaler.ClusterPools.outstandingPerQueue;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageTopologySpec;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.operator.model.Conditions;
import dev.backstage.operator.model.ProviderType;
import dev.backstage.operator.model.QueueSpec;
import dev.backstage.operator.model.RabbitMqQueueType;
import dev.backstage.operator.model.RabbitMqSettings;
import dev.backstage.operator.model.SecretKeyReference;
import dev.backstage.operator.testing.OperatorTestHarness;
import dev.backstage.operator.topology.TopologySettings;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.OutgoingJob;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import dev.backstage.testsupport.RabbitMqQueues;
import dev.backstage.testsupport.SharedBroker;
import dev.backstage.testsupport.UniqueNames;
import dev.backstage.testsupport.UsesSharedBrokers;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The operator on the 3-node RabbitMQ cluster of {@code bin/lib.sh ensure_rabbitmq_cluster} (bs-a, bs-b, bs-c on
 * 5681-5683): the topology reconciler declares quorum queues with a member on every node (read from the
 * management API), and a pool reports the backlog and the dead letters read through the cluster and scales on them;
 * the dead letters, once counted, never read fewer while the broker holds them (the management API's figures of a
 * quorum queue lag by 10 s and more; the probe counts them over AMQP), and a pool on a queue the broker does not
 * have gets BacklogAvailable=False QueueNotFound with its replicas held, not a backlog of 0.
 */
@Tag("broker")
@UsesSharedBrokers(SharedBroker.RABBITMQ_CLUSTER)
class RabbitMqClusterPoolTest {
    private static final String AMQP = "amqp://guest:guest@127.0.0.1:5681";
    private static final String ADDRESSES = "127.0.0.1:5681,127.0.0.1:5682,127.0.0.1:5683";
    /** On loopback every node has its own management port (not 15672 on each host, as in production). */
    private static final String MANAGEMENT = "http://127.0.0.1:15681,http://127.0.0.1:15682,http://127.0.0.1:15683";

    private static final Set<String> NODES = Set.of("bs-a@localhost", "bs-b@localhost", "bs-c@localhost");

    private static OperatorTestHarness harness;
    private static KubernetesClient client;
    private static RabbitMqQueues management;
    private static Connection amqp;
    private static final List<String> PREFIXES = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        harness = OperatorTestHarness.startWithTopologies(
                new TopologySettings(Duration.ofSeconds(2), 2, Duration.ofMillis(300)));
        client = harness.client();
        management = new RabbitMqQueues(AMQP, "http://127.0.0.1:15681");
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(AMQP);
        amqp = factory.newConnection("rabbitmq-cluster-pool-test");
    }

    @AfterAll
    static void stop() throws Exception {
        harness.close(); // first: no reconciler declares anything again after the clean-up
        for (String prefix : PREFIXES) {
            management.deleteQueuesAndExchanges(prefix);
        }
        amqp.close();
    }

    @Test
    void givenAQuorumTopologyOnThreeNodes_whenJobsAndDeadLettersArrive_thenTheyAreInStatusAndThePoolScalesOnThem()
            throws Exception {
        String ns = harness.newNamespace("rqcluster");
        String prefix = UniqueNames.prefix("bs-rqpool");
        PREFIXES.add(prefix);
        ClusterPools.secret(client, ns, "rabbitmq-cluster", AMQP + "/%2F");
        BackstageTopology topology = topology(ns, "shop", prefix);
        client.resource(topology).create();

        awaitTopologyReady(client, ns, "shop");
        for (String queue : List.of(prefix + ".orders", prefix + ".orders.dead-letter")) {
            JsonNode declared = management.queue(queue);
            assertEquals("quorum", declared.path("type").asText(), queue);
            Set<String> members = new TreeSet<>();
            declared.path("members").forEach(m -> members.add(m.asText()));
            assertEquals(NODES, members, queue + " has a member on every node");
        }
        assertEquals(
                10,
                management
                        .queue(prefix + ".orders")
                        .path("arguments")
                        .path("x-delivery-limit")
                        .asInt(),
                "the topology's deliveryLimit");

        List<Long> deadLetterTotals = new CopyOnWriteArrayList<>(); // every status the API server stores, in order
        client.resource(autoscaledPool(ns, "workers", "shop", 1, 10, 2, "orders"))
                .create();
        Watch watch = client.resources(BackstageWorkerPool.class)
                .inNamespace(ns)
                .withName("workers")
                .watch(new Watcher<>() {
                    @Override
                    public void eventReceived(Action action, BackstageWorkerPool pool) {
                        if (pool.getStatus() != null && pool.getStatus().getDeadLetters() != null) {
                            deadLetterTotals.add(
                                    pool.getStatus().getDeadLetters().getTotal());
                        }
                    }

                    @Override
                    public void onClose(WatcherException cause) {}
                });
        awaitStatus(
                client,
                ns,
                "workers",
                s -> backlogAvailable(s) && s.getBacklog().getOutstanding() == 0);
        try (Provider provider = Providers.create(ProviderSettings.of("rabbitmq", AMQP)
                .withPrefix(prefix)
                .withOptions(RabbitMqSettings.providerOptions(topology.getSpec().getRabbitmq())))) {
            for (int i = 0; i < 6; i++) {
                provider.jobs().publish(OutgoingJob.fresh("orders", "work", "{\"n\":" + i + "}", JobMeta.NONE));
            }
        }
        try (Channel channel = amqp.createChannel()) {
            channel.confirmSelect();
            for (int i = 0; i < 2; i++) {
                channel.basicPublish("", prefix + ".orders.dead-letter", null, "{}".getBytes(StandardCharsets.UTF_8));
            }
            channel.waitForConfirmsOrDie(10_000);
        }

        System.out.println("6 jobs and 2 dead letters on a 3-node quorum queue, 2 per replica: waiting for 3 replicas");
        BackstageWorkerPoolStatus up = awaitStatus(
                client,
                ns,
                "workers",
                s -> backlogAvailable(s)
                        && s.getBacklog().getOutstanding() == 6
                        && s.getDeadLetters() != null
                        && s.getDeadLetters().getTotal() == 2
                        && Integer.valueOf(3).equals(s.getDesiredReplicas()));
        assertEquals(Map.of("orders", 6L), outstandingPerQueue(up));
        assertEquals(Map.of("orders", 2L), deadLettersPerQueue(up));
        await().atMost(WAIT).untilAsserted(() -> assertEquals(3, deploymentReplicas(client, ns, "workers")));

        try (Channel channel = amqp.createChannel()) {
            for (int i = 0; i < 6; i++) {
                GetResponse job = channel.basicGet(prefix + ".orders", false);
                assertNotNull(job, "job " + i + " of 6 on the quorum queue");
                channel.basicAck(job.getEnvelope().getDeliveryTag(), false);
            }
        }
        System.out.println("all 6 consumed and acknowledged: waiting for minReplicas 1");
        // Drained shows once the management API's snapshot of the work queue has caught up (in flight exists only
        // there): waited for on the broker's own report, so the pool's deadline does not include the broker's lag.
        await("management API: " + prefix + ".orders empty")
                .atMost(Duration.ofMinutes(5))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> {
                    JsonNode q = management.queue(prefix + ".orders");
                    return q.path("messages_ready").asLong(-1) == 0
                            && q.path("messages_unacknowledged").asLong(-1) == 0;
                });
        await().atMost(WAIT).untilAsserted(() -> assertEquals(1, deploymentReplicas(client, ns, "workers")));
        BackstageWorkerPoolStatus drained =
                awaitStatus(client, ns, "workers", s -> s.getBacklog().getOutstanding() == 0);
        watch.close();
        assertEquals(2, countByGet(prefix + ".orders.dead-letter"), "the broker holds both dead letters");
        assertEquals(
                2L,
                drained.getDeadLetters().getTotal(),
                () -> "dead letters stay until redriven; status "
                        + io.fabric8.kubernetes.client.utils.Serialization.asJson(drained) + "; broker: "
                        + describe(prefix + ".orders.dead-letter") + "; events: "
                        + client.v1().events().inNamespace(ns).list().getItems().stream()
                                .map(e -> e.getReason() + ": " + e.getMessage())
                                .toList());
        List<Long> afterTwo = deadLetterTotals.subList(deadLetterTotals.indexOf(2L), deadLetterTotals.size());
        assertTrue(
                afterTwo.stream().allMatch(t -> t == 2L),
                "once counted, the dead letters never read fewer: " + deadLetterTotals);
    }

    @Test
    void givenAScaledPool_whenItsQueueIsMisspelt_thenBacklogIsUnavailableAndReplicasAreHeld() throws Exception {
        String ns = harness.newNamespace("rqmissing");
        String prefix = UniqueNames.prefix("bs-rqmiss");
        PREFIXES.add(prefix);
        ClusterPools.secret(client, ns, "rabbitmq-cluster", AMQP + "/%2F");
        BackstageTopology topology = topology(ns, "shop", prefix);
        client.resource(topology).create();
        awaitTopologyReady(client, ns, "shop");
        try (Provider provider = Providers.create(ProviderSettings.of("rabbitmq", AMQP)
                .withPrefix(prefix)
                .withOptions(RabbitMqSettings.providerOptions(topology.getSpec().getRabbitmq())))) {
            for (int i = 0; i < 6; i++) {
                provider.jobs().publish(OutgoingJob.fresh("orders", "work", "{\"n\":" + i + "}", JobMeta.NONE));
            }
        }
        client.resource(autoscaledPool(ns, "workers", "shop", 0, 10, 2, "orders"))
                .create();
        awaitStatus(client, ns, "workers", s -> Integer.valueOf(3).equals(s.getDesiredReplicas()));
        await().atMost(WAIT).untilAsserted(() -> assertEquals(3, deploymentReplicas(client, ns, "workers")));

        // A typo in spec.queues (admission refuses it; this harness has no webhook, as when the webhook is bypassed).
        // A merge patch without resourceVersion: the autoscaler writes status meanwhile.
        client.resources(BackstageWorkerPool.class)
                .inNamespace(ns)
                .withName("workers")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"queues\":[\"ordres\"]}}");
        BackstageWorkerPoolStatus status = awaitStatus(
                client,
                ns,
                "workers",
                s -> Conditions.find(s.getConditions(), AutoscalerStatus.BACKLOG_AVAILABLE)
                        .filter(c -> "QueueNotFound".equals(c.getReason()))
                        .isPresent());
        String message = Conditions.find(status.getConditions(), AutoscalerStatus.BACKLOG_AVAILABLE)
                .orElseThrow()
                .getMessage();
        System.out.println("BacklogAvailable of a pool on a missing queue: " + message);
        assertTrue(message.contains(prefix + ".ordres") && message.contains("replicas are held"), message);
        assertEquals(3, status.getDesiredReplicas(), "held, not scaled to minReplicas 0 on a backlog of 0");
        assertEquals(3, deploymentReplicas(client, ns, "workers"));
        await("a BacklogUnavailable event")
                .atMost(WAIT)
                .until(() -> client.v1().events().inNamespace(ns).list().getItems().stream()
                        .anyMatch(e -> "BacklogUnavailable".equals(e.getReason())
                                && e.getMessage().startsWith("QueueNotFound: ")));
    }

    /** Counts a queue's messages with basic.get through its quorum leader, then gives them back (channel closed). */
    private static long countByGet(String queue) throws Exception {
        try (Channel channel = amqp.createChannel()) {
            long count = 0;
            while (channel.basicGet(queue, false) != null) {
                count++;
            }
            return count;
        }
    }

    private static String describe(String queue) {
        try {
            JsonNode q = management.queue(queue);
            return queue + " messages=" + q.path("messages") + " ready=" + q.path("messages_ready");
        } catch (Exception e) {
            return queue + ": " + e;
        }
    }

    /** The shape of examples/manifests/rabbitmq-cluster.yaml: quorum queues, delivery limit 10, every node listed. */
    private static BackstageTopology topology(String ns, String name, String prefix) {
        RabbitMqSettings rabbit = new RabbitMqSettings();
        rabbit.setQueueType(RabbitMqQueueType.QUORUM);
        rabbit.setDeliveryLimit(10);
        rabbit.setAddresses(ADDRESSES);
        rabbit.setManagementUrl(MANAGEMENT);
        BackstageTopologySpec spec = new BackstageTopologySpec();
        spec.setProvider(ProviderType.RABBITMQ);
        spec.setConnection(new SecretKeyReference("rabbitmq-cluster", "url"));
        spec.setKeyPrefix(prefix);
        spec.setQueues(List.of(new QueueSpec("orders", null, null)));
        spec.setRabbitmq(rabbit);
        BackstageTopology topology = new BackstageTopology();
        topology.setMetadata(
                new ObjectMetaBuilder().withNamespace(ns).withName(name).build());
        topology.setSpec(spec);
        return topology;
    }
}
