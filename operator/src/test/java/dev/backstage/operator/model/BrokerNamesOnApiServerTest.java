package dev.backstage.operator.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.backstage.operator.testing.RealApiServer;
import dev.backstage.runtime.spi.BrokerNames;
import dev.backstage.testsupport.ControlPlane;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The broker names of the CRDs on the real API server, without the admission webhook: the schema's own rules
 * ({@link BrokerNameRules}) refuse what the runtime's {@link BrokerNames} refuses, with the same fix-it text, and
 * accept what it accepts. Every request is a server-side dry run, so nothing is stored.
 *
 * <p>The committed CRDs ({@code crds/}) are served here under an API group of this class's own, with their schemas
 * as they are: the control plane is shared, and other test runs apply their own {@code crds/} to
 * {@code backstage.dev} at any moment, which once made this class see an older schema half-way through.
 */
@Tag("cluster")
class BrokerNamesOnApiServerTest {
    /** The rules' messages; {@code CrdOnApiServerTest} leaves them to this class. */
    static final Set<String> MESSAGES = Set.of(
            BrokerNameRules.PREFIX_MESSAGE,
            BrokerNameRules.BRACED_PREFIX_MESSAGE,
            BrokerNameRules.QUEUE_MESSAGE,
            BrokerNameRules.NOT_RESERVED_MESSAGE,
            BrokerNameRules.GROUP_MESSAGE,
            BrokerNameRules.TASK_MESSAGE,
            BrokerNameRules.SCHEDULE_MESSAGE);

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SCHEDULE_QUEUE_DECLARED = "a schedule's queue must be declared in spec.queues";
    private static final String RULES_SKIPPED = "some validation rules were not checked because the object was invalid";
    private static RealApiServer api;
    private static String namespace;
    private static String group;

    /** What BrokerNames says of a name in one field: the oracle the API server must agree with. */
    private interface Oracle extends BiFunction<String, String, Optional<String>> {}

    /** A key prefix of provider redis (the topology here, and the only capability backend): braces allowed. */
    private static final Oracle REDIS_PREFIX = (field, value) -> BrokerNames.prefixProblem(field, value, "redis");

    /** One broker-name field of a CRD: where it is, the rule it follows and the message the API server gives. */
    private record Field(boolean pool, String pointer, String path, Oracle oracle, String message) {
        /** How the API server shows the value of a CEL refusal: the list for a rule on a list of names. */
        String shownAs() {
            return pointer.matches(".*/\\d+") ? "array" : "string";
        }
    }

    private static final List<Field> FIELDS = List.of(
            new Field(false, "/spec/keyPrefix", "spec.keyPrefix", REDIS_PREFIX, BrokerNameRules.PREFIX_MESSAGE),
            new Field(
                    false,
                    "/spec/consumerGroup",
                    "spec.consumerGroup",
                    BrokerNames::groupProblem,
                    BrokerNameRules.GROUP_MESSAGE),
            new Field(
                    false,
                    "/spec/queues/0/name",
                    "spec.queues[0].name",
                    BrokerNames::queueProblem,
                    BrokerNameRules.QUEUE_MESSAGE),
            new Field(
                    false,
                    "/spec/topics/0/name",
                    "spec.topics[0].name",
                    BrokerNames::queueProblem,
                    BrokerNameRules.QUEUE_MESSAGE),
            new Field(
                    false,
                    "/spec/schedules/0/name",
                    "spec.schedules[0].name",
                    BrokerNames::scheduleProblem,
                    BrokerNameRules.SCHEDULE_MESSAGE),
            new Field(
                    false,
                    "/spec/schedules/0/task",
                    "spec.schedules[0].task",
                    BrokerNames::taskProblem,
                    BrokerNameRules.TASK_MESSAGE),
            new Field(
                    false,
                    "/spec/schedules/0/queue",
                    "spec.schedules[0].queue",
                    BrokerNames::queueProblem,
                    BrokerNameRules.QUEUE_MESSAGE),
            new Field(
                    false,
                    "/spec/capabilities/delays/keyPrefix",
                    "spec.capabilities.delays.keyPrefix",
                    REDIS_PREFIX,
                    BrokerNameRules.PREFIX_MESSAGE),
            new Field(true, "/spec/queues/0", "spec.queues", BrokerNames::queueProblem, BrokerNameRules.QUEUE_MESSAGE),
            new Field(
                    true,
                    "/spec/topics/0/topic",
                    "spec.topics[0].topic",
                    BrokerNames::queueProblem,
                    BrokerNameRules.QUEUE_MESSAGE),
            new Field(
                    true,
                    "/spec/topics/0/group",
                    "spec.topics[0].group",
                    BrokerNames::groupProblem,
                    BrokerNameRules.GROUP_MESSAGE));

    /** Names from issue 29's hostile use: each must be refused by the API server itself. */
    private static final List<String> HOSTILE =
            List.of("$(rm -rf /)", "../../etc/passwd", "<script>", "a\nb", "\u202Eevil");

    /** Good and bad names for every rule: characters, first character, lengths, separators, reserved names. */
    private static final List<String> TABLE = List.of(
            "default",
            "emails.high-priority_2",
            "a",
            "A9",
            "orders-v2",
            "billing/send-invoice:v2",
            "hy:a",
            "hy.a",
            "{orders}",
            "{" + "x".repeat(38) + "}",
            "{}",
            "{orders",
            "orders}",
            "{hy}:a",
            "{a.b}",
            "x{a}",
            "x".repeat(40),
            "x".repeat(41),
            "x".repeat(100),
            "y".repeat(101),
            "z".repeat(200),
            "z".repeat(201),
            "",
            "-lead",
            ".hidden",
            "_under",
            "a b",
            "tab\there",
            "$(rm -rf /)",
            "../../etc/passwd",
            "<script>",
            "a\nb",
            "\u202Eevil",
            "\u001B[31mred",
            "caf\u00E9",
            "quote'd",
            "broadcast",
            "scheduled",
            "topics",
            "delayed",
            "redrive",
            "dead-letter",
            "a.dead-letter",
            "a.retry",
            "topic.x",
            "broadcast.x",
            "topic",
            "retry",
            "dead-letters");

    @BeforeAll
    static void serveTheCrdsUnderAGroupOfTheirOwn() throws Exception {
        api = RealApiServer.shared();
        namespace = api.namespace("names");
        group = namespace + ".backstage.test";
        KubernetesClient client = api.client();
        for (String plural : List.of("backstagetopologies", "backstageworkerpools")) {
            Path file = api.controlPlane().root().resolve("crds").resolve(plural + ".backstage.dev-v1.yml");
            CustomResourceDefinition crd = client.getKubernetesSerialization()
                    .unmarshal(Files.readString(file), CustomResourceDefinition.class);
            crd.getSpec().setGroup(group);
            crd.getMetadata().setName(crd.getSpec().getNames().getPlural() + "." + group);
            crd.getSpec().getNames().setShortNames(null); // bwp and btp stay the real kinds' names
            crd.getSpec().getNames().setCategories(null);
            client.apiextensions()
                    .v1()
                    .customResourceDefinitions()
                    .resource(crd)
                    .create();
            client.apiextensions()
                    .v1()
                    .customResourceDefinitions()
                    .withName(crd.getMetadata().getName())
                    .waitUntilCondition(
                            c -> c != null
                                    && c.getStatus() != null
                                    && c.getStatus().getConditions() != null
                                    && c.getStatus().getConditions().stream()
                                            .anyMatch(k ->
                                                    "Established".equals(k.getType()) && "True".equals(k.getStatus())),
                            60,
                            TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void deleteTheCrdsAndTheNamespace() {
        if (group != null) {
            for (String plural : List.of("backstagetopologies", "backstageworkerpools")) {
                api.controlPlane().kubectl("delete", "crd", plural + "." + group, "--ignore-not-found", "--wait=false");
            }
        }
        if (namespace != null) {
            api.deleteNamespace(namespace);
        }
    }

    @Test
    void
            givenHostileNamesInEveryBrokerNameField_whenAppliedWithKubectl_thenTheApiServerRefusesEachWithTheFixItMessage() {
        List<String> failures = new ArrayList<>();
        for (String name : HOSTILE) {
            for (boolean pool : new boolean[] {false, true}) {
                ObjectNode manifest = pool ? pool() : topology();
                FIELDS.stream().filter(f -> f.pool() == pool).forEach(f -> set(manifest, f.pointer(), name));
                ControlPlane.Result result = api.controlPlane()
                        .kubectlWithInput(manifest.toString(), "apply", "--dry-run=server", "-n", namespace, "-f", "-");
                String shown = BrokerNames.shown(name, 40);
                if (result.exit() == 0) {
                    failures.add(shown + " accepted in a " + (pool ? "pool" : "topology"));
                    continue;
                }
                for (Field field : FIELDS) {
                    String refusal = field.path() + ": Invalid value: \"" + field.shownAs() + "\": " + field.message();
                    if (field.pool() == pool && !result.err().contains(refusal)) {
                        failures.add(shown + " in " + field.path() + " not refused with its message: " + result.err());
                    }
                }
                if (result.err().contains(name)) {
                    failures.add("the refusal repeats " + shown + " as it is: " + result.err());
                }
            }
        }
        assertEquals(List.of(), failures);
    }

    @Test
    void givenATableOfNames_whenEachFieldIsChecked_thenTheApiServerAndBrokerNamesAgree() {
        KubernetesClient client = api.client();
        List<String> disagreements = new ArrayList<>();
        int refused = 0;
        for (Field field : FIELDS) {
            for (String name : TABLE) {
                ObjectNode manifest = field.pool() ? pool() : topology();
                set(manifest, field.pointer(), name);
                List<StatusCause> causes = dryRun(client, manifest, field.pool());
                List<StatusCause> ours = causes.stream()
                        .filter(c -> c.getField() != null
                                && (c.getField().equals(field.path())
                                        || c.getField().startsWith(field.path() + "[")))
                        .toList();
                // Causes of other fields would mean the rest of the manifest is wrong: none may appear. Two are not
                // about the name: a schedule's queue that is a good name but not in spec.queues breaks the
                // topology's own rule, and a value over maxLength comes with a field-less note that the CEL rules
                // were skipped.
                List<StatusCause> others = causes.stream()
                        .filter(c -> !ours.contains(c)
                                && !c.getMessage().contains(SCHEDULE_QUEUE_DECLARED)
                                && !c.getMessage().contains(RULES_SKIPPED))
                        .toList();
                boolean runtimeRefuses =
                        field.oracle().apply(field.path(), name).isPresent();
                if (runtimeRefuses == ours.isEmpty() || !others.isEmpty()) {
                    disagreements.add(field.path() + " " + BrokerNames.shown(name, 40) + ": BrokerNames "
                            + (runtimeRefuses ? "refuses" : "accepts") + ", the API server answered "
                            + causes.stream()
                                    .map(c -> c.getField() + ": " + c.getMessage())
                                    .toList());
                }
                refused += runtimeRefuses ? 1 : 0;
            }
        }
        assertEquals(List.of(), disagreements);
        assertNotEquals(0, refused, "the table has names BrokerNames refuses");
        assertTrue(refused < FIELDS.size() * TABLE.size(), "the table has names BrokerNames accepts");
    }

    @Test
    void givenAKeyPrefixInBraces_whenTheProviderIsRabbitMqOrKafka_thenTheApiServerRefusesItSayingWhy() {
        KubernetesClient client = api.client();
        for (String provider : List.of("rabbitmq", "kafka", "redis")) {
            ObjectNode manifest = JSON.valueToTree(Map.of(
                    "apiVersion",
                    group + "/v1alpha1",
                    "kind",
                    "BackstageTopology",
                    "metadata",
                    Map.of("name", "braced-" + provider),
                    "spec",
                    Map.of(
                            "provider",
                            provider,
                            "connection",
                            Map.of("secretName", "broker", "key", "url"),
                            "keyPrefix",
                            "{orders}",
                            "queues",
                            List.of(Map.of("name", "default")),
                            "capabilities",
                            Map.of(
                                    "delays",
                                    Map.of(
                                            "backend",
                                            "redis",
                                            "keyPrefix",
                                            "{delays}",
                                            "connection",
                                            Map.of("secretName", "redis", "key", "url"))))));
            List<String> causes = dryRun(client, manifest, false).stream()
                    .map(c -> c.getField() + ": " + c.getMessage())
                    .toList();
            if (provider.equals("redis")) {
                assertEquals(List.of(), causes);
            } else {
                assertEquals(1, causes.size(), provider + ": " + causes);
                assertTrue(causes.get(0).contains(BrokerNameRules.BRACED_PREFIX_MESSAGE), causes.get(0));
            }
        }
    }

    @Test
    void givenTheServedCrds_thenEveryBrokerNameMessageIsAmongTheirRules() throws Exception {
        String served = api.controlPlane()
                .kubectl("get", "crd", "backstagetopologies." + group, "backstageworkerpools." + group, "-o", "json")
                .orThrow()
                .out();
        for (String message : MESSAGES) {
            assertTrue(served.contains(JSON.writeValueAsString(message)), "no rule with message: " + message);
        }
        assertFalse(served.contains("^[a-zA-Z0-9._-]+$"), "the old, looser pattern is gone");
    }

    /** The causes the API server gives for refusing {@code manifest} (empty when it accepts it). */
    private static List<StatusCause> dryRun(KubernetesClient client, ObjectNode manifest, boolean pool) {
        ResourceDefinitionContext kind = new ResourceDefinitionContext.Builder()
                .withGroup(group)
                .withVersion("v1alpha1")
                .withKind(pool ? "BackstageWorkerPool" : "BackstageTopology")
                .withPlural(pool ? "backstageworkerpools" : "backstagetopologies")
                .withNamespaced(true)
                .build();
        GenericKubernetesResource resource =
                client.getKubernetesSerialization().unmarshal(manifest.toString(), GenericKubernetesResource.class);
        try {
            client.genericKubernetesResources(kind)
                    .inNamespace(namespace)
                    .resource(resource)
                    .dryRun()
                    .create();
            return List.of();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 422 || e.getStatus() == null || e.getStatus().getDetails() == null) {
                throw e;
            }
            return e.getStatus().getDetails().getCauses();
        }
    }

    private static void set(ObjectNode manifest, String pointer, String value) {
        int slash = pointer.lastIndexOf('/');
        JsonNode parent = manifest.at(pointer.substring(0, slash));
        String last = pointer.substring(slash + 1);
        if (parent instanceof ArrayNode array) {
            array.set(Integer.parseInt(last), value);
        } else {
            ((ObjectNode) parent).put(last, value);
        }
    }

    /** A valid topology with every broker-name field set. */
    private static ObjectNode topology() {
        return JSON.valueToTree(Map.of(
                "apiVersion",
                group + "/v1alpha1",
                "kind",
                "BackstageTopology",
                "metadata",
                Map.of("name", "names"),
                "spec",
                Map.of(
                        "provider",
                        "redis",
                        "connection",
                        Map.of("secretName", "broker", "key", "url"),
                        "keyPrefix",
                        "orders",
                        "consumerGroup",
                        "backstage-workers",
                        "queues",
                        List.of(Map.of("name", "default")),
                        "topics",
                        List.of(Map.of("name", "orders")),
                        "schedules",
                        List.of(Map.of("name", "nightly", "schedule", "@hourly", "task", "report", "queue", "default")),
                        "capabilities",
                        Map.of(
                                "delays",
                                Map.of(
                                        "backend",
                                        "redis",
                                        "keyPrefix",
                                        "orders",
                                        "connection",
                                        Map.of("secretName", "redis", "key", "url"))))));
    }

    /** A valid pool with every broker-name field set. */
    private static ObjectNode pool() {
        return JSON.valueToTree(Map.of(
                "apiVersion",
                group + "/v1alpha1",
                "kind",
                "BackstageWorkerPool",
                "metadata",
                Map.of("name", "names"),
                "spec",
                Map.of(
                        "image",
                        "backstage-sample-tasks:0.1.0",
                        "topologyRef",
                        Map.of("name", "orders"),
                        "queues",
                        List.of("default"),
                        "topics",
                        List.of(Map.of("topic", "orders", "group", "audit")))));
    }
}
