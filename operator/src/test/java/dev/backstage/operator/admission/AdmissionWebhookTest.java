package dev.backstage.operator.admission;

import static dev.backstage.operator.admission.WebhookClient.review;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.backstage.operator.model.AutoscalingSpec;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.CapabilityBackend;
import dev.backstage.operator.model.DelayedExchangeMode;
import dev.backstage.operator.model.DeletionPolicy;
import dev.backstage.operator.model.KafkaTopologySettings;
import dev.backstage.operator.model.ProviderType;
import dev.backstage.operator.model.QueueSpec;
import dev.backstage.operator.model.RabbitMqQueueType;
import dev.backstage.operator.model.RabbitMqSettings;
import dev.backstage.operator.model.ScheduleSpec;
import dev.backstage.operator.model.SecretKeyReference;
import dev.backstage.operator.model.StartPositionSpec;
import dev.backstage.operator.model.SuppliedCapabilities;
import dev.backstage.operator.model.TopicSpec;
import dev.backstage.operator.model.TopicSubscriptionSpec;
import dev.backstage.operator.testing.BackstageFixtures;
import dev.backstage.operator.testing.MockKubernetes;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The validating webhook over real HTTPS: AdmissionReviews as the API server sends them, to the paths the Helm chart
 * registers, answered by the server the operator runs. Pools' topologies are looked up in the mock API server.
 */
class AdmissionWebhookTest {
    private static final String TOPOLOGY = WebhookServer.TOPOLOGY_PATH;
    private static final String POOL = WebhookServer.POOL_PATH;

    private static MockKubernetes mock;
    private static KubernetesClient client;
    private static WebhookServer server;
    private static WebhookClient webhook;
    private static String ns;

    @BeforeAll
    static void start() throws Exception {
        mock = MockKubernetes.start();
        client = mock.client();
        Path tls = Files.createTempDirectory("webhook-tls");
        SelfSignedCertificate certificate = SelfSignedCertificate.generate("EC");
        certificate.writeTo(tls);
        server = new WebhookServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), tls, client);
        server.start();
        webhook = new WebhookClient(certificate.trustingContext(), server.port());
        ns = UniqueNames.prefix("admission").toLowerCase();
        client.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(ns)
                        .endMetadata()
                        .build())
                .create();
    }

    @AfterAll
    static void stop() {
        server.close();
        mock.close();
    }

    // ---- BackstageTopology --------------------------------------------------------------------------------------

    @Test
    void givenValidRedisTopology_whenCreated_thenAllowedWithoutWarningsAndTheUidIsEchoed() {
        ObjectNode review = review("CREATE", ns, redis("orders"), null);
        WebhookClient.Answer answer = webhook.send(TOPOLOGY, review);
        assertEquals(200, answer.status());
        assertTrue(answer.allowed(), answer.body());
        assertEquals(review.path("request").path("uid").asText(), answer.uid());
        assertEquals("AdmissionReview", answer.json().path("kind").asText());
        assertEquals("admission.k8s.io/v1", answer.json().path("apiVersion").asText());
        assertEquals(List.of(), answer.warnings());
    }

    @Test
    void givenUnsafeOrCollidingBrokerNames_thenTheTopologyIsDeniedWithTheSharedRulesFixIt() {
        BackstageTopology prefix = redis("orders");
        prefix.getSpec().setKeyPrefix("hy.a");
        WebhookClient.Answer answer = webhook.send(TOPOLOGY, review("CREATE", ns, prefix, null));
        assertFalse(answer.allowed());
        assertTrue(answer.message().contains("spec.keyPrefix 'hy.a' is not a valid key prefix"), answer.message());
        assertTrue(answer.message().contains("no '.' or ':'"), answer.message());

        BackstageTopology queue = BackstageFixtures.redisTopology(ns, "names", "a.dead-letter");
        queue.getSpec().setConsumerGroup("\u202Eevil\n");
        answer = webhook.send(TOPOLOGY, review("CREATE", ns, queue, null));
        assertFalse(answer.allowed());
        assertTrue(answer.message().contains("spec.queues[0].name 'a.dead-letter' is reserved"), answer.message());
        assertTrue(
                answer.message().contains("spec.consumerGroup '\\u202Eevil\\u000A' is not a valid consumer group"),
                answer.message());
        assertFalse(answer.message().contains("\u202E"), answer.message());
    }

    @Test
    void givenKafkaTopologyWithoutDelays_whenCreated_thenDeniedSayingToSetCapabilitiesDelays() {
        WebhookClient.Answer answer = webhook.send(TOPOLOGY, review("CREATE", ns, kafka("jobs", null), null));
        assertFalse(answer.allowed());
        assertTrue(answer.message().contains("set spec.capabilities.delays"), answer.message());
        assertEquals(
                403, answer.json().path("response").path("status").path("code").asInt());
    }

    @Test
    void givenKafkaTopologyWithRedisDelays_whenCreated_thenAllowed() {
        WebhookClient.Answer answer =
                webhook.send(TOPOLOGY, review("CREATE", ns, kafka("jobs", backend(ProviderType.REDIS)), null));
        assertTrue(answer.allowed(), answer.body());
    }

    @Test
    void givenDelaysSuppliedByKafka_whenCreated_thenDeniedSayingOnlyRedisSuppliesThem() {
        WebhookClient.Answer answer =
                webhook.send(TOPOLOGY, review("CREATE", ns, kafka("jobs", backend(ProviderType.KAFKA)), null));
        assertFalse(answer.allowed());
        assertTrue(
                answer.message().contains("spec.capabilities.delays.backend: kafka cannot supply delays"),
                answer.message());
        assertTrue(answer.message().contains("set it to redis"), answer.message());
    }

    @Test
    void givenKafkaMinInsyncReplicasAboveTheReplicationFactor_thenItIsDeniedSayingWhatToSet() {
        BackstageTopology topology = kafka("jobs", backend(ProviderType.REDIS));
        topology.getSpec().setKafka(new KafkaTopologySettings(1, 2));
        WebhookClient.Answer answer = webhook.send(TOPOLOGY, review("CREATE", ns, topology, null));
        assertFalse(answer.allowed());
        assertTrue(
                answer.message().contains("spec.kafka.minInsyncReplicas 2 exceeds the replication factor 1"),
                answer.message());

        topology.getSpec().setKafka(new KafkaTopologySettings(1, null)); // the single-broker override: min ISR 1
        assertTrue(webhook.send(TOPOLOGY, review("CREATE", ns, topology, null)).allowed());
    }

    @Test
    void givenAKafkaQueueWithFewerReplicasThanTheDefaultMinInsyncReplicas_thenItIsDeniedNamingTheQueue() {
        BackstageTopology topology = kafka("jobs", backend(ProviderType.REDIS));
        topology.getSpec().getQueues().get(0).setReplicationFactor(1); // the topology's default min ISR is 2
        WebhookClient.Answer answer = webhook.send(TOPOLOGY, review("CREATE", ns, topology, null));
        assertFalse(answer.allowed());
        assertTrue(
                answer.message()
                        .contains("spec.queues[0].replicationFactor 1 is below the topology's"
                                + " min.insync.replicas 2"),
                answer.message());
    }

    @Test
    void givenKafkaSettingsOnARedisTopology_thenItIsDenied() {
        BackstageTopology topology = redis("jobs");
        topology.getSpec().setKafka(new KafkaTopologySettings(3, 2));
        WebhookClient.Answer answer = webhook.send(TOPOLOGY, review("CREATE", ns, topology, null));
        assertFalse(answer.allowed());
        assertTrue(answer.message().contains("spec.kafka applies only to provider kafka"), answer.message());
    }

    @Test
    void givenRabbitMqPluginModeWithoutAcknowledgement_whenCreated_thenDeniedSayingToConfirmOrUseAuto() {
        BackstageTopology topology = rabbit("jobs", DelayedExchangeMode.PLUGIN);
        WebhookClient.Answer answer = webhook.send(TOPOLOGY, review("CREATE", ns, topology, null));
        assertFalse(answer.allowed());
        assertTrue(answer.message().contains("spec.rabbitmq.pluginInstalled: true"), answer.message());
        assertTrue(answer.message().contains("auto"), answer.message());

        topology.getSpec().getRabbitmq().setPluginInstalled(true);
        assertTrue(webhook.send(TOPOLOGY, review("CREATE", ns, topology, null)).allowed());
    }

    @Test
    void givenRabbitMqSuppliedModeWithoutASupplier_whenCreated_thenDenied() {
        WebhookClient.Answer answer =
                webhook.send(TOPOLOGY, review("CREATE", ns, rabbit("jobs", DelayedExchangeMode.SUPPLIED), null));
        assertFalse(answer.allowed());
        assertTrue(answer.message().contains("nothing supplies delays"), answer.message());
        assertTrue(answer.message().contains("spec.capabilities.delays"), answer.message());
    }

    @Test
    void givenRabbitMqSettingsOnARedisTopology_whenCreated_thenDenied() {
        BackstageTopology topology = redis("orders");
        topology.getSpec().setRabbitmq(new RabbitMqSettings(DelayedExchangeMode.AUTO));
        WebhookClient.Answer answer = webhook.send(TOPOLOGY, review("CREATE", ns, topology, null));
        assertFalse(answer.allowed());
        assertTrue(answer.message().contains("spec.rabbitmq applies only to provider rabbitmq"), answer.message());
    }

    @Test
    void givenProviderChangedInPlace_whenUpdated_thenDeniedAsImmutable() {
        BackstageTopology before = redis("orders");
        BackstageTopology after = kafka("orders", backend(ProviderType.REDIS));
        WebhookClient.Answer answer = webhook.send(TOPOLOGY, review("UPDATE", ns, after, before));
        assertFalse(answer.allowed());
        assertTrue(answer.message().contains("spec.provider is immutable (it was redis)"), answer.message());
    }

    @Test
    void givenRabbitMqQueueTypeChangedInPlace_whenUpdated_thenDeniedSayingHowToMigrate() {
        BackstageTopology before = rabbit("orders", DelayedExchangeMode.AUTO);
        before.getSpec().getRabbitmq().setQueueType(RabbitMqQueueType.CLASSIC);
        BackstageTopology after = rabbit("orders", DelayedExchangeMode.AUTO);
        after.getSpec().getRabbitmq().setQueueType(RabbitMqQueueType.QUORUM);
        WebhookClient.Answer answer = webhook.send(TOPOLOGY, review("UPDATE", ns, after, before));
        assertFalse(answer.allowed());
        assertTrue(
                answer.message().contains("spec.rabbitmq.queueType cannot change in place (it is classic)"),
                answer.message());
        assertTrue(
                answer.message().contains("create a new BackstageTopology with another keyPrefix"), answer.message());
        BackstageTopology unset = rabbit("orders", DelayedExchangeMode.AUTO);
        assertTrue(
                webhook.send(TOPOLOGY, review("UPDATE", ns, before, unset)).allowed(),
                "unset to classic: a topology from before queue types states what its queues are");
        assertFalse(
                webhook.send(TOPOLOGY, review("UPDATE", ns, unset, before)).allowed(),
                "classic to unset means quorum: refused");
    }

    @Test
    void givenKeyPrefixChanged_whenUpdated_thenAllowedWithAWarningAboutTheOldObjects() {
        BackstageTopology before = redis("orders");
        BackstageTopology after = redis("orders");
        after.getSpec().setKeyPrefix("renamed");
        WebhookClient.Answer answer = webhook.send(TOPOLOGY, review("UPDATE", ns, after, before));
        assertTrue(answer.allowed(), answer.body());
        assertEquals(1, answer.warnings().size(), answer.warnings().toString());
        assertTrue(
                answer.warnings().get(0).contains("spec.keyPrefix changed"),
                answer.warnings().toString());
    }

    @Test
    void givenDuplicateQueueNamesAndNoConnection_whenCreated_thenDeniedWithEveryProblem() {
        BackstageTopology topology = redis("orders");
        topology.getSpec().setQueues(List.of(new QueueSpec("a", null, null), new QueueSpec("a", null, null)));
        topology.getSpec().setConnection(null);
        WebhookClient.Answer answer = webhook.send(TOPOLOGY, review("CREATE", ns, topology, null));
        assertFalse(answer.allowed());
        assertTrue(answer.message().contains("queue 'a' is declared twice"), answer.message());
        assertTrue(answer.message().contains("spec.connection.secretName is required"), answer.message());
    }

    @Test
    void givenDeletePolicyAndKafkaSizingOnRedis_whenCreated_thenAllowedWithBothWarnings() {
        BackstageTopology topology = redis("orders");
        topology.getSpec().setDeletionPolicy(DeletionPolicy.DELETE);
        topology.getSpec().setQueues(List.of(new QueueSpec("orders", 6, null)));
        WebhookClient.Answer answer = webhook.send(TOPOLOGY, review("CREATE", ns, topology, null));
        assertTrue(answer.allowed(), answer.body());
        assertEquals(2, answer.warnings().size(), answer.warnings().toString());
        assertTrue(
                answer.warnings().stream().anyMatch(w -> w.contains("deletes its queues")),
                answer.warnings().toString());
        assertTrue(
                answer.warnings().stream().anyMatch(w -> w.contains("apply to Kafka only")),
                answer.warnings().toString());
    }

    @Test
    void givenDeleteOperation_thenAllowed() {
        WebhookClient.Answer answer = webhook.send(TOPOLOGY, review("DELETE", ns, null, kafka("jobs", null)));
        assertTrue(answer.allowed(), answer.body());
    }

    @Test
    void givenPoolsStillUseATopology_whenItIsDeleted_thenAllowedWithAWarningThatNamesThem() {
        String name = UniqueNames.prefix("used").toLowerCase();
        for (String poolName : List.of(name + "-b", name + "-a")) {
            BackstageWorkerPool using = pool(name, "orders");
            using.getMetadata().setName(poolName);
            using.getMetadata().setNamespace(ns);
            client.resource(using).create();
        }
        BackstageTopology deleted = redis(name);
        deleted.getMetadata().setNamespace(ns);
        deleted.getSpec().setDeletionPolicy(DeletionPolicy.DELETE);

        WebhookClient.Answer answer = webhook.send(TOPOLOGY, review("DELETE", ns, null, deleted));
        assertTrue(answer.allowed(), answer.body());
        assertEquals(1, answer.warnings().size(), answer.warnings().toString());
        String warning = answer.warnings().get(0);
        assertTrue(
                warning.startsWith("BackstageTopology '" + name + "' is still used by pool(s) " + name + "-a, " + name
                        + "-b: deletionPolicy delete removes their queues and the jobs in them"),
                warning);

        WebhookClient.Answer unused = webhook.send(TOPOLOGY, review("DELETE", ns, null, redis(name + "-unused")));
        assertTrue(unused.allowed() && unused.warnings().isEmpty(), unused.body());
    }

    // ---- BackstageWorkerPool ------------------------------------------------------------------------------------

    @Test
    void givenPoolOnAnExistingTopologyAndItsQueues_whenCreated_thenAllowed() {
        String topology = existing(redis(UniqueNames.prefix("t").toLowerCase()))
                .getMetadata()
                .getName();
        WebhookClient.Answer answer = webhook.send(POOL, review("CREATE", ns, pool(topology, "orders"), null));
        assertTrue(answer.allowed(), answer.body());
        assertEquals(List.of(), answer.warnings());
    }

    @Test
    void givenPoolNamingAnUnknownTopology_whenCreated_thenDeniedSayingToCreateItOrFixTheReference() {
        WebhookClient.Answer answer = webhook.send(POOL, review("CREATE", ns, pool("ghost", "orders"), null));
        assertFalse(answer.allowed());
        assertTrue(
                answer.message().contains("BackstageTopology 'ghost' not found in namespace '" + ns + "'"),
                answer.message());
        assertTrue(answer.message().contains("fix spec.topologyRef.name"), answer.message());
    }

    @Test
    void givenPoolNamingAQueueTheTopologyLacks_whenCreated_thenDeniedListingTheDeclaredQueues() {
        String topology = existing(redis(UniqueNames.prefix("t").toLowerCase()))
                .getMetadata()
                .getName();
        WebhookClient.Answer answer =
                webhook.send(POOL, review("CREATE", ns, pool(topology, "orders", "refunds"), null));
        assertFalse(answer.allowed());
        assertTrue(
                answer.message()
                        .contains("queue 'refunds' is not declared by BackstageTopology '" + topology
                                + "' (it declares [orders])"),
                answer.message());
    }

    @Test
    void givenPoolSubscribingToAnUndeclaredTopic_whenCreated_thenDenied() {
        BackstageTopology withTopics = redis(UniqueNames.prefix("t").toLowerCase());
        withTopics.getSpec().setTopics(List.of(new TopicSpec("audit")));
        String topology = existing(withTopics).getMetadata().getName();
        BackstageWorkerPool pool = pool(topology, "orders");
        pool.getSpec()
                .setTopics(List.of(
                        new TopicSubscriptionSpec("audit", "g1", StartPositionSpec.LATEST),
                        new TopicSubscriptionSpec("billing", "g1", StartPositionSpec.LATEST)));
        WebhookClient.Answer answer = webhook.send(POOL, review("CREATE", ns, pool, null));
        assertFalse(answer.allowed());
        assertTrue(answer.message().contains("topic 'billing' is not declared"), answer.message());
        assertFalse(answer.message().contains("'audit'"), answer.message());
    }

    @Test
    void givenMinReplicasAboveMax_whenCreated_thenDenied() {
        String topology = existing(redis(UniqueNames.prefix("t").toLowerCase()))
                .getMetadata()
                .getName();
        BackstageWorkerPool pool = pool(topology, "orders");
        AutoscalingSpec autoscaling = new AutoscalingSpec();
        autoscaling.setEnabled(true);
        autoscaling.setMinReplicas(5);
        autoscaling.setMaxReplicas(2);
        pool.getSpec().setAutoscaling(autoscaling);
        WebhookClient.Answer answer = webhook.send(POOL, review("CREATE", ns, pool, null));
        assertFalse(answer.allowed());
        assertTrue(answer.message().contains("minReplicas (5) is above maxReplicas (2)"), answer.message());
    }

    @Test
    void givenUnreadableOrOutOfBoundsAutoscalingDurations_whenCreated_thenDeniedNamingEachField() {
        String topology = existing(redis(UniqueNames.prefix("t").toLowerCase()))
                .getMetadata()
                .getName();
        BackstageWorkerPool pool = pool(topology, "orders");
        AutoscalingSpec autoscaling = new AutoscalingSpec();
        autoscaling.setEnabled(true);
        autoscaling.setPodStartupTime("ten seconds");
        autoscaling.setPollInterval("0s");
        autoscaling.setScaleUpLookahead("2h");
        autoscaling.setScaleDownInterval("soon");
        pool.getSpec().setAutoscaling(autoscaling);
        WebhookClient.Answer answer = webhook.send(POOL, review("CREATE", ns, pool, null));
        assertFalse(answer.allowed());
        for (String expected : List.of(
                "spec.autoscaling.podStartupTime: 'ten seconds' is not a duration",
                "spec.autoscaling.pollInterval must be greater than zero",
                "spec.autoscaling.scaleUpLookahead must be at most 1h (got 2h), e.g. 120s",
                "spec.autoscaling.scaleDownInterval: 'soon' is not a duration")) {
            assertTrue(answer.message().contains(expected), expected + " in " + answer.message());
        }
    }

    @Test
    void givenZeroConcurrencyNegativePrefetchAndZeroGrace_whenCreated_thenDeniedNamingEachField() {
        String topology = existing(redis(UniqueNames.prefix("t").toLowerCase()))
                .getMetadata()
                .getName();
        BackstageWorkerPool pool = pool(topology, "orders");
        pool.getSpec().setConcurrency(0);
        pool.getSpec().setPrefetch(-1);
        pool.getSpec().setShutdownGracePeriod("0s");
        pool.getSpec().setHardTimeout("5 minutes");
        WebhookClient.Answer answer = webhook.send(POOL, review("CREATE", ns, pool, null));
        assertFalse(answer.allowed());
        for (String expected : List.of(
                "spec.concurrency must be at least 1 (got 0)",
                "spec.prefetch must be at least 1 (got -1)",
                "spec.shutdownGracePeriod must be greater than zero",
                "spec.hardTimeout: '5 minutes' is not a duration")) {
            assertTrue(answer.message().contains(expected), expected + " in " + answer.message());
        }
    }

    @Test
    void givenKafkaPoolWithMaxReplicasAbovePartitionsAndPrefetchBelowConcurrency_whenCreated_thenAllowedWithWarnings() {
        BackstageTopology kafka = kafka(UniqueNames.prefix("t").toLowerCase(), backend(ProviderType.REDIS));
        kafka.getSpec().setQueues(List.of(new QueueSpec("orders", 3, 1)));
        String topology = existing(kafka).getMetadata().getName();
        BackstageWorkerPool pool = pool(topology, "orders");
        AutoscalingSpec autoscaling = new AutoscalingSpec();
        autoscaling.setEnabled(true);
        autoscaling.setMinReplicas(1);
        autoscaling.setMaxReplicas(10);
        pool.getSpec().setAutoscaling(autoscaling);
        pool.getSpec().setConcurrency(20);
        pool.getSpec().setPrefetch(5);
        WebhookClient.Answer answer = webhook.send(POOL, review("CREATE", ns, pool, null));
        assertTrue(answer.allowed(), answer.body());
        assertEquals(2, answer.warnings().size(), answer.warnings().toString());
        assertTrue(
                answer.warnings().stream()
                        .anyMatch(w ->
                                w.contains("maxReplicas (10) is above the partition count") && w.contains("at most 3")),
                answer.warnings().toString());
        assertTrue(
                answer.warnings().stream().anyMatch(w -> w.contains("prefetch (5) is below spec.concurrency (20)")),
                answer.warnings().toString());
    }

    @Test
    void givenPoolOnAKafkaTopologyThatSlippedPastAdmissionWithoutDelays_whenCreated_thenDenied() {
        String topology = existing(kafka(UniqueNames.prefix("t").toLowerCase(), null))
                .getMetadata()
                .getName();
        WebhookClient.Answer answer = webhook.send(POOL, review("CREATE", ns, pool(topology, "jobs"), null));
        assertFalse(answer.allowed());
        assertTrue(answer.message().contains("supplies no delays"), answer.message());
        assertTrue(answer.message().contains("set spec.capabilities.delays on the topology"), answer.message());
    }

    @Test
    void givenPoolSubscribingToTopicsWhereTheTopologyHasNone_whenCreated_thenDenied() {
        String topology = existing(redis(UniqueNames.prefix("t").toLowerCase()))
                .getMetadata()
                .getName();
        BackstageWorkerPool pool = pool(topology);
        pool.getSpec().setQueues(null);
        pool.getSpec().setTopics(List.of(new TopicSubscriptionSpec("audit", "g1", StartPositionSpec.EARLIEST)));
        WebhookClient.Answer answer = webhook.send(POOL, review("CREATE", ns, pool, null));
        assertFalse(answer.allowed());
        assertTrue(
                answer.message()
                        .contains("topic 'audit' is not declared by BackstageTopology '" + topology
                                + "' (it declares [])"),
                answer.message());
    }

    // ---- Malformed requests ----------------------------------------------------------------------------------

    @Test
    void givenBodyThatIsNotJson_thenHttp400WithAMessage() {
        WebhookClient.Answer answer = webhook.post(TOPOLOGY, "{not json", "application/json");
        assertEquals(400, answer.status());
        assertTrue(answer.body().contains("body is not JSON"), answer.body());
    }

    @Test
    void givenEmptyBody_thenHttp400() {
        WebhookClient.Answer answer = webhook.post(POOL, "", "application/json");
        assertEquals(400, answer.status());
        assertTrue(answer.body().contains("empty body"), answer.body());
    }

    @Test
    void givenGet_thenHttp400SayingPostIsExpected() {
        HttpResponse<String> response = webhook.raw(webhook.request(TOPOLOGY).GET());
        assertEquals(400, response.statusCode());
        assertTrue(response.body().contains("expected POST"), response.body());
        assertEquals("POST", response.headers().firstValue("Allow").orElse(null));
    }

    @Test
    void givenReviewWithoutRequest_thenHttp400() {
        WebhookClient.Answer answer = webhook.post(
                TOPOLOGY, "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\"}", "application/json");
        assertEquals(400, answer.status());
        assertTrue(answer.body().contains("no request"), answer.body());
    }

    @Test
    void givenWrongReviewKindWithAUid_thenDeniedReviewEchoingTheUid() {
        ObjectNode review = review("CREATE", ns, redis("orders"), null);
        review.put("kind", "ConversionReview");
        WebhookClient.Answer answer = webhook.send(TOPOLOGY, review);
        assertEquals(200, answer.status());
        assertFalse(answer.allowed());
        assertEquals(review.path("request").path("uid").asText(), answer.uid());
        assertTrue(answer.message().contains("expected kind AdmissionReview"), answer.message());
    }

    @Test
    void givenTopologySentToThePoolPath_thenDeniedNamingTheMismatch() {
        WebhookClient.Answer answer = webhook.send(POOL, review("CREATE", ns, redis("orders"), null));
        assertFalse(answer.allowed());
        assertTrue(
                answer.message().contains("validates BackstageWorkerPool, but the request is for BackstageTopology"),
                answer.message());
    }

    @Test
    void givenWrongContentType_thenDeniedReview() {
        ObjectNode review = review("CREATE", ns, redis("orders"), null);
        WebhookClient.Answer answer = webhook.post(TOPOLOGY, review.toString(), "text/plain");
        assertEquals(200, answer.status());
        assertFalse(answer.allowed());
        assertTrue(answer.message().contains("Content-Type must be application/json"), answer.message());
    }

    @Test
    void givenObjectWithAFieldOfTheWrongType_thenDeniedCleanlyNotA500() {
        ObjectNode review = review("CREATE", ns, redis("orders"), null);
        ((ObjectNode) review.path("request").path("object").path("spec")).put("queues", "orders");
        WebhookClient.Answer answer = webhook.send(TOPOLOGY, review);
        assertEquals(200, answer.status());
        assertFalse(answer.allowed());
        assertTrue(answer.message().startsWith("could not read the request as a BackstageTopology"), answer.message());
    }

    @Test
    void givenUnknownOperation_thenDenied() {
        ObjectNode review = review("CREATE", ns, redis("orders"), null);
        ((ObjectNode) review.path("request")).put("operation", "PATCH");
        WebhookClient.Answer answer = webhook.send(TOPOLOGY, review);
        assertFalse(answer.allowed());
        assertTrue(
                answer.message().contains("'PATCH' is not one of CREATE, UPDATE, DELETE, CONNECT"), answer.message());
    }

    @Test
    void givenRotatedCertificate_thenTheNextConnectionIsServedTheNewOne() throws IOException {
        Path tls = Files.createTempDirectory("webhook-rotate");
        SelfSignedCertificate first = SelfSignedCertificate.generate("RSA");
        first.writeTo(tls);
        try (WebhookServer rotating =
                new WebhookServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), tls, client)) {
            rotating.start();
            assertTrue(new WebhookClient(first.trustingContext(), rotating.port())
                    .send(TOPOLOGY, review("CREATE", ns, redis("orders"), null))
                    .allowed());

            SelfSignedCertificate second = SelfSignedCertificate.generate("EC");
            second.writeTo(tls);
            // Some file systems keep whole-second times; make sure the change is visible as one.
            Files.setLastModifiedTime(
                    tls.resolve("tls.crt"),
                    java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 5_000));

            assertTrue(new WebhookClient(second.trustingContext(), rotating.port())
                    .send(TOPOLOGY, review("CREATE", ns, redis("orders"), null))
                    .allowed());
            List<Throwable> refused = new ArrayList<>();
            try {
                new WebhookClient(first.trustingContext(), rotating.port())
                        .raw(webhook.request(TOPOLOGY).GET());
            } catch (RuntimeException e) {
                refused.add(e);
            }
            assertEquals(1, refused.size(), "a client trusting only the old certificate no longer connects");
        } catch (java.security.GeneralSecurityException e) {
            throw new AssertionError(e);
        }
    }

    // ---- schedules -------------------------------------------------------------------------------------------

    @Test
    void givenAValidSchedule_whenCreated_thenAllowed() {
        BackstageTopology topology = redis("cron-ok");
        topology.getSpec().setSchedules(List.of(schedule("nightly", "0 2 * * *", "Europe/Paris", "orders")));
        WebhookClient.Answer answer = webhook.send(TOPOLOGY, review("CREATE", ns, topology, null));
        assertTrue(answer.allowed(), answer.body());
    }

    @Test
    void givenABadCronExpression_whenCreated_thenDeniedSayingWhatIsAccepted() {
        BackstageTopology topology = redis("cron-bad");
        topology.getSpec().setSchedules(List.of(schedule("nightly", "0 25 * * *", null, "orders")));
        WebhookClient.Answer answer = webhook.send(TOPOLOGY, review("CREATE", ns, topology, null));
        System.out.println("bad cron: " + answer.message());
        assertFalse(answer.allowed());
        assertTrue(
                answer.message().contains("spec.schedules[0]: cron expression '0 25 * * *' is invalid"),
                answer.message());
        assertTrue(
                answer.message().contains("use 5 fields 'minute hour day-of-month month day-of-week'"),
                answer.message());
    }

    @Test
    void givenAnUnknownTimeZone_whenCreated_thenDeniedSayingToUseAnIanaId() {
        BackstageTopology topology = redis("cron-zone");
        topology.getSpec().setSchedules(List.of(schedule("nightly", "0 2 * * *", "Europe/Atlantis", "orders")));
        WebhookClient.Answer answer = webhook.send(TOPOLOGY, review("CREATE", ns, topology, null));
        System.out.println("bad zone: " + answer.message());
        assertFalse(answer.allowed());
        assertTrue(
                answer.message()
                        .contains("spec.schedules[0]: time zone 'Europe/Atlantis' is unknown: use an IANA"
                                + " zone id such as 'UTC', 'Europe/Paris' or 'America/New_York'"),
                answer.message());
    }

    @Test
    void givenAScheduleOnAnUndeclaredQueue_whenCreated_thenDeniedNamingTheDeclaredOnes() {
        BackstageTopology topology = redis("cron-queue");
        topology.getSpec().setSchedules(List.of(schedule("nightly", "0 2 * * *", null, "reports")));
        WebhookClient.Answer answer = webhook.send(TOPOLOGY, review("CREATE", ns, topology, null));
        System.out.println("undeclared queue: " + answer.message());
        assertFalse(answer.allowed());
        assertTrue(
                answer.message()
                        .contains("spec.schedules[0]: queue 'reports' is not declared by this topology:"
                                + " add it to spec.queues or set spec.schedules[0].queue to one of [orders]"),
                answer.message());
    }

    @Test
    void givenAScheduleOnRabbitMqWithoutDedupe_whenCreated_thenDeniedUntilRedisDedupeIsSupplied() {
        BackstageTopology topology = rabbit("cron-rabbit", DelayedExchangeMode.AUTO);
        topology.getSpec().setSchedules(List.of(schedule("nightly", "0 2 * * *", null, "jobs")));
        WebhookClient.Answer denied = webhook.send(TOPOLOGY, review("CREATE", ns, topology, null));
        System.out.println("no dedupe: " + denied.message());
        assertFalse(denied.allowed());
        assertTrue(
                denied.message()
                        .contains("the rabbitmq provider has no dedupe: set spec.capabilities.dedupe"
                                + " (backend: redis"),
                denied.message());
        topology.getSpec().setCapabilities(new SuppliedCapabilities(null, backend(ProviderType.REDIS)));
        WebhookClient.Answer allowed = webhook.send(TOPOLOGY, review("CREATE", ns, topology, null));
        assertTrue(allowed.allowed(), allowed.body());
    }

    private static ScheduleSpec schedule(String name, String cron, String zone, String queue) {
        ScheduleSpec spec = new ScheduleSpec();
        spec.setName(name);
        spec.setSchedule(cron);
        spec.setTimeZone(zone);
        spec.setTask("report.build");
        spec.setQueue(queue);
        return spec;
    }

    // ---- fixtures ---------------------------------------------------------------------------------------------

    private static BackstageTopology redis(String name) {
        return BackstageFixtures.redisTopology(ns, name, "orders");
    }

    private static BackstageTopology kafka(String name, CapabilityBackend delays) {
        BackstageTopology topology = BackstageFixtures.redisTopology(ns, name, "jobs");
        topology.getSpec().setProvider(ProviderType.KAFKA);
        if (delays != null) {
            topology.getSpec().setCapabilities(new SuppliedCapabilities(delays, null));
        }
        return topology;
    }

    private static BackstageTopology rabbit(String name, DelayedExchangeMode mode) {
        BackstageTopology topology = BackstageFixtures.redisTopology(ns, name, "jobs");
        topology.getSpec().setProvider(ProviderType.RABBITMQ);
        topology.getSpec().setRabbitmq(new RabbitMqSettings(mode));
        return topology;
    }

    private static CapabilityBackend backend(ProviderType type) {
        return new CapabilityBackend(type, new SecretKeyReference("delays-redis", "url"), null);
    }

    private static BackstageWorkerPool pool(String topology, String... queues) {
        return BackstageFixtures.pool(ns, "workers", topology, queues);
    }

    private static BackstageTopology existing(BackstageTopology topology) {
        return client.resource(topology).create();
    }
}
