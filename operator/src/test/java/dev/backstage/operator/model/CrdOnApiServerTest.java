package dev.backstage.operator.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.backstage.operator.testing.RealApiServer;
import dev.backstage.testsupport.ControlPlane;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The committed CRDs ({@code crds/}) on the real API server of {@code bin/control-plane}, driven with the real
 * {@code kubectl}: accepted and Established; every CEL rule rejects a manifest with its own message and accepts
 * the same manifest made right (server-side dry run, so nothing is stored); {@code kubectl get} prints the
 * columns in a useful order; every field has a description for {@code kubectl explain}.
 */
@Tag("cluster")
class CrdOnApiServerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static ControlPlane cluster;
    private static String namespace;

    /** One rule's case: the message it must print, a manifest it rejects, and the corrected manifest it accepts. */
    record Case(String message, String rejected, String accepted) {}

    @BeforeAll
    static void applyCrds() {
        // The CRDs applied with the real kubectl and Established, no admission webhook: the schema and CEL alone.
        RealApiServer api = RealApiServer.shared();
        cluster = api.controlPlane();
        namespace = api.namespace("crd");
    }

    @AfterAll
    static void deleteNamespace() {
        if (namespace != null) {
            cluster.kubectl("delete", "namespace", namespace, "--wait=false");
        }
    }

    @Test
    void givenTheCrds_whenApplied_thenTheyAreEstablishedWithTheirShortNames() {
        String names = cluster.kubectl("api-resources", "--api-group=backstage.dev", "-o", "wide")
                .orThrow()
                .out();
        assertTrue(names.contains("bwp") && names.contains("btp"), names);
    }

    @Test
    void givenEveryCelRule_whenABadManifestIsApplied_thenItIsRejectedWithTheRulesMessageAndTheFixedOneIsAccepted() {
        Set<String> untested = new TreeSet<>(celMessages());
        List<String> failures = new ArrayList<>();
        for (Case c : cases()) {
            untested.removeIf(m -> m.equals(c.message()));
            ControlPlane.Result rejected = dryRun(c.rejected());
            if (rejected.exit() == 0 || !rejected.err().contains(c.message())) {
                failures.add("not rejected with '" + c.message() + "': exit " + rejected.exit() + " "
                        + rejected.err().strip());
            }
            ControlPlane.Result accepted = dryRun(c.accepted());
            if (accepted.exit() != 0) {
                failures.add("fixed manifest for '" + c.message() + "' not accepted: "
                        + accepted.err().strip());
            }
        }
        assertEquals(List.of(), failures);
        assertEquals(Set.of(), untested, "CEL rules in crds/ with no case here");
    }

    @Test
    void givenATopology_whenItsProviderIsChanged_thenTheTransitionRuleRejectsIt() {
        cluster.kubectlWithInput(topology("immutable", "provider: redis"), "apply", "-n", namespace, "-f", "-")
                .orThrow();
        ControlPlane.Result changed =
                cluster.kubectlWithInput(topology("immutable", """
                provider: rabbitmq"""), "apply", "-n", namespace, "-f", "-");
        assertFalse(changed.exit() == 0, changed.out());
        assertTrue(changed.err().contains("provider is immutable; create a new BackstageTopology"), changed.err());
        ControlPlane.Result same =
                cluster.kubectlWithInput(topology("immutable", """
                provider: redis
                keyPrefix: other"""), "apply", "-n", namespace, "-f", "-");
        assertEquals(0, same.exit(), same.err());
    }

    @Test
    void givenPoolsAndTopologies_whenListed_thenKubectlPrintsTheColumnsInAUsefulOrder() {
        cluster.kubectlWithInput(topology("columns", "provider: redis"), "apply", "-n", namespace, "-f", "-")
                .orThrow();
        cluster.kubectlWithInput(pool("columns", ""), "apply", "-n", namespace, "-f", "-")
                .orThrow();
        assertEquals(
                List.of("NAME", "READY", "REPLICAS", "DESIRED", "BACKLOG", "DEADLETTERS", "HEARTBEAT", "AGE"),
                header(cluster.kubectl("get", "bwp", "-n", namespace).orThrow().out()));
        assertEquals(
                List.of("NAME", "PROVIDER", "READY", "SCHEDULES", "LAST", "FIRED", "AGE"),
                header(cluster.kubectl("get", "btp", "-n", namespace).orThrow().out()));
    }

    @Test
    void givenTheCrds_whenExplained_thenEveryFieldAtEveryLevelHasADescription() throws Exception {
        for (String crd : List.of("backstageworkerpools.backstage.dev", "backstagetopologies.backstage.dev")) {
            JsonNode served = JSON.readTree(
                    cluster.kubectl("get", "crd", crd, "-o", "json").orThrow().out());
            JsonNode schema = served.at("/spec/versions/0/schema/openAPIV3Schema/properties");
            List<String> missing = new ArrayList<>();
            Class<?> resource =
                    crd.startsWith("backstageworkerpools") ? BackstageWorkerPool.class : BackstageTopology.class;
            Class<?>[] specAndStatus = typeArguments(resource);
            missingDescriptions(schema.get("spec"), specAndStatus[0], "spec", missing);
            missingDescriptions(schema.get("status"), specAndStatus[1], "status", missing);
            assertEquals(List.of(), missing, crd + ": fields without a description");
        }
        String explained =
                cluster.kubectl("explain", "bwp.spec.autoscaling").orThrow().out();
        assertTrue(explained.contains("DESCRIPTION:") && explained.contains("FIELDS:"), explained);
        for (String field : List.of("minReplicas", "maxReplicas", "pollInterval", "targetBacklogPerReplica")) {
            assertTrue(
                    explained.lines().anyMatch(l -> l.strip().startsWith(field)),
                    "explain lists " + field + ":\n" + explained);
        }
        String explainedTopology = cluster.kubectl("explain", "btp.spec.capabilities.delays")
                .orThrow()
                .out();
        assertTrue(
                explainedTopology
                        .lines()
                        .dropWhile(l -> !l.startsWith("DESCRIPTION:"))
                        .skip(1)
                        .anyMatch(l -> !l.isBlank() && !l.startsWith("FIELDS:")),
                explainedTopology);
    }

    /**
     * Walks the served schema beside the model classes: each of our fields needs a description; a field holding a
     * Kubernetes type (EnvVar, Affinity, ...) needs one itself, while that type's own fields are Kubernetes' (the
     * generator has no text for them).
     */
    private static void missingDescriptions(JsonNode node, Class<?> type, String path, List<String> missing) {
        if (node == null) {
            return;
        }
        if (node.path("description").asText("").isBlank()) {
            missing.add(path);
        }
        if (type == null || type.getName().startsWith("io.fabric8.")) {
            return;
        }
        JsonNode properties = node.has("properties")
                ? node.get("properties")
                : node.path("items").path("properties");
        for (Iterator<Map.Entry<String, JsonNode>> it = properties.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            missingDescriptions(e.getValue(), fieldType(type, e.getKey()), path + "." + e.getKey(), missing);
        }
    }

    /** The model type of JSON property {@code name} of {@code type} (a list's element type), null for a scalar. */
    private static Class<?> fieldType(Class<?> type, String name) {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (java.lang.reflect.Field f : c.getDeclaredFields()) {
                com.fasterxml.jackson.annotation.JsonProperty json =
                        f.getAnnotation(com.fasterxml.jackson.annotation.JsonProperty.class);
                String jsonName = json != null && !json.value().isEmpty() ? json.value() : f.getName();
                if (!jsonName.equals(name)) {
                    continue;
                }
                java.lang.reflect.Type generic = f.getGenericType();
                if (generic instanceof java.lang.reflect.ParameterizedType p
                        && java.util.Collection.class.isAssignableFrom(f.getType())
                        && p.getActualTypeArguments()[0] instanceof Class<?> element) {
                    return element;
                }
                return f.getType().isPrimitive() || f.getType().getName().startsWith("java.") ? null : f.getType();
            }
        }
        return null;
    }

    private static Class<?>[] typeArguments(Class<?> resource) {
        java.lang.reflect.ParameterizedType p = (java.lang.reflect.ParameterizedType) resource.getGenericSuperclass();
        return new Class<?>[] {(Class<?>) p.getActualTypeArguments()[0], (Class<?>) p.getActualTypeArguments()[1]};
    }

    private static List<String> header(String table) {
        return Arrays.asList(table.lines().findFirst().orElse("").trim().split("\\s+"));
    }

    private static ControlPlane.Result dryRun(String manifest) {
        return cluster.kubectlWithInput(manifest, "apply", "--dry-run=server", "-n", namespace, "-f", "-");
    }

    /** Every CEL rule message in the committed CRDs, as the API server serves them. */
    private static Set<String> celMessages() {
        Set<String> messages = new TreeSet<>();
        for (String crd : List.of("backstageworkerpools.backstage.dev", "backstagetopologies.backstage.dev")) {
            try {
                JsonNode served = JSON.readTree(cluster.kubectl("get", "crd", crd, "-o", "json")
                        .orThrow()
                        .out());
                collect(served.at("/spec/versions/0/schema/openAPIV3Schema"), messages);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        // The provider's transition rule (self == oldSelf) only runs on update: it has its own test.
        messages.removeIf(m -> m.startsWith("provider is immutable"));
        // The broker-name rules have a class of their own, with hostile names and a table shared with BrokerNames.
        messages.removeAll(BrokerNamesOnApiServerTest.MESSAGES);
        return messages;
    }

    private static void collect(JsonNode node, Set<String> messages) {
        if (node == null || !node.isContainerNode()) {
            return;
        }
        node.path("x-kubernetes-validations")
                .forEach(v -> messages.add(v.path("message").asText()));
        node.forEach(child -> collect(child, messages));
    }

    // --- the cases ----------------------------------------------------------------------------------------------

    private static String topology(String name, String spec) {
        return """
                apiVersion: backstage.dev/v1alpha1
                kind: BackstageTopology
                metadata: {name: %s}
                spec:
                  connection: {secretName: broker, key: url}
                  queues: [{name: default}]
                %s
                """.formatted(name, spec.indent(2).stripTrailing());
    }

    private static String pool(String name, String extra) {
        return """
                apiVersion: backstage.dev/v1alpha1
                kind: BackstageWorkerPool
                metadata: {name: %s}
                spec:
                  image: backstage-sample-tasks:0.1.0
                  topologyRef: {name: orders}
                %s
                """.formatted(
                name, (extra.isEmpty() ? "queues: [default]" : extra).indent(2).stripTrailing());
    }

    private static List<Case> cases() {
        Map<String, String[]> t = new LinkedHashMap<>();
        t.put("spec.rabbitmq applies only to provider rabbitmq", new String[] {
            "provider: redis\nrabbitmq: {delayedExchange: fallback}",
            "provider: rabbitmq\nrabbitmq: {delayedExchange: fallback}"
        });
        t.put(
                "spec.redis applies only to provider redis",
                new String[] {"provider: rabbitmq\nredis: {mode: cluster}", "provider: redis\nredis: {mode: cluster}"});
        t.put(dev.backstage.operator.model.RedisTopologySettings.NOTHING_WAITS, new String[] {
            "provider: redis\nredis: {waitTimeoutMs: 500}",
            "provider: redis\nredis: {waitReplicas: 1, waitTimeoutMs: 500}"
        });
        String kafkaDelays = "\ncapabilities: {delays: {backend: redis, connection: {secretName: redis, key: url}}}";
        t.put("spec.kafka applies only to provider kafka", new String[] {
            "provider: redis\nkafka: {replicationFactor: 1}",
            "provider: kafka\nkafka: {replicationFactor: 1}" + kafkaDelays
        });
        t.put(
                "kafka.minInsyncReplicas must not exceed kafka.replicationFactor: no produce could succeed",
                new String[] {
                    "provider: kafka\nkafka: {replicationFactor: 1, minInsyncReplicas: 2}" + kafkaDelays,
                    "provider: kafka\nkafka: {replicationFactor: 1, minInsyncReplicas: 1}" + kafkaDelays
                });
        t.put(RabbitMqSettings.MANAGEMENT_URL_FORM, new String[] {
            "provider: rabbitmq\nrabbitmq: {managementUrl: 'http://admin:secret@rabbitmq-0:15672'}",
            "provider: rabbitmq\nrabbitmq: {managementUrl: 'http://rabbitmq-0:15672, https://rabbitmq-1:15671/api-root'}"
        });
        t.put("rabbitmq.delayedExchange 'supplied' needs spec.capabilities.delays", new String[] {
            "provider: rabbitmq\nrabbitmq: {delayedExchange: supplied}",
            "provider: rabbitmq\nrabbitmq: {delayedExchange: supplied}\n"
                    + "capabilities: {delays: {backend: redis, connection: {secretName: redis, key: url}}}"
        });
        t.put(
                "Kafka has no delays of its own and retries wait in them: set spec.capabilities.delays (backend redis)",
                new String[] {
                    "provider: kafka",
                    "provider: kafka\ncapabilities: {delays: {backend: redis, connection: {secretName: redis, key: url}}}"
                });
        t.put("only redis can supply delays separately: set capabilities.delays.backend to redis", new String[] {
            "provider: rabbitmq\ncapabilities: {delays: {backend: rabbitmq, connection: {secretName: redis, key: url}}}",
            "provider: rabbitmq\ncapabilities: {delays: {backend: redis, connection: {secretName: redis, key: url}}}"
        });
        t.put("only redis can supply dedupe separately: set capabilities.dedupe.backend to redis", new String[] {
            "provider: rabbitmq\ncapabilities: {dedupe: {backend: kafka, connection: {secretName: redis, key: url}}}",
            "provider: rabbitmq\ncapabilities: {dedupe: {backend: redis, connection: {secretName: redis, key: url}}}"
        });
        t.put("queue names must be unique", new String[] {
            "provider: redis\nqueues: [{name: default}, {name: default}]",
            "provider: redis\nqueues: [{name: default}, {name: emails}]"
        });
        t.put(
                "delayedExchange 'plugin' needs the broker's rabbitmq_delayed_message_exchange plugin: confirm it with "
                        + "pluginInstalled: true, or use auto or fallback",
                new String[] {
                    "provider: rabbitmq\nrabbitmq: {delayedExchange: plugin}",
                    "provider: rabbitmq\nrabbitmq: {delayedExchange: plugin, pluginInstalled: true}"
                });
        t.put("topic names must be unique", new String[] {
            "provider: redis\ntopics: [{name: orders}, {name: orders}]",
            "provider: redis\ntopics: [{name: orders}, {name: payments}]"
        });
        t.put("schedule names must be unique", new String[] {
            "provider: redis\nschedules: [{name: r, schedule: '@hourly', task: t}, {name: r, schedule: '@daily', task: t}]",
            "provider: redis\nschedules: [{name: r, schedule: '@hourly', task: t}, {name: s, schedule: '@daily', task: t}]"
        });
        t.put(
                "a schedule's queue must be declared in spec.queues: add it there or set the schedule's queue to one of"
                        + " them",
                new String[] {
                    "provider: redis\nschedules: [{name: r, schedule: '@hourly', task: t, queue: reports}]",
                    "provider: redis\nschedules: [{name: r, schedule: '@hourly', task: t, queue: default}]"
                });
        t.put(
                "schedules claim each tick with a dedupe key and this provider has no dedupe: set"
                        + " spec.capabilities.dedupe (backend redis)",
                new String[] {
                    "provider: rabbitmq\nschedules: [{name: r, schedule: '@hourly', task: t}]",
                    "provider: rabbitmq\nschedules: [{name: r, schedule: '@hourly', task: t}]\n"
                            + "capabilities: {dedupe: {backend: redis, connection: {secretName: redis, key: url}}}"
                });
        Map<String, String[]> p = new LinkedHashMap<>();
        p.put(
                "a pool must consume at least one queue or topic: set spec.queues or spec.topics",
                new String[] {"queues: []", "queues: [default]"});
        p.put("spec.maxDeliveries is the old name of spec.maxRetries: set only spec.maxRetries", new String[] {
            "queues: [default]\nmaxRetries: 3\nmaxDeliveries: 3", "queues: [default]\nmaxRetries: 3"
        });
        p.put("autoscaling.minReplicas must be <= autoscaling.maxReplicas", new String[] {
            "queues: [default]\nautoscaling: {enabled: true, minReplicas: 5, maxReplicas: 2}",
            "queues: [default]\nautoscaling: {enabled: true, minReplicas: 2, maxReplicas: 5}"
        });
        p.put("autoscaling.pollInterval must be greater than zero, e.g. 5s", new String[] {
            "queues: [default]\nautoscaling: {enabled: true, pollInterval: 0s}",
            "queues: [default]\nautoscaling: {enabled: true, pollInterval: 5s}"
        });
        p.put("autoscaling.zeroPollInterval must be greater than zero, e.g. 1s", new String[] {
            "queues: [default]\nautoscaling: {enabled: true, zeroPollInterval: 0s}",
            "queues: [default]\nautoscaling: {enabled: true, zeroPollInterval: 1s}"
        });
        p.put("autoscaling.scaleUpLookahead must be at most 1h, e.g. 120s", new String[] {
            "queues: [default]\nautoscaling: {enabled: true, scaleUpLookahead: 1h1s}",
            "queues: [default]\nautoscaling: {enabled: true, scaleUpLookahead: 1h}"
        });
        p.put("autoscaling.scaleDownInterval must be at most 1h, e.g. 60s", new String[] {
            "queues: [default]\nautoscaling: {enabled: true, scaleDownInterval: 61m}",
            "queues: [default]\nautoscaling: {enabled: true, scaleDownInterval: 0s}"
        });
        p.put("autoscaling.targetDrainTime must be greater than zero, e.g. 2m", new String[] {
            "queues: [default]\nautoscaling: {enabled: true, targetDrainTime: 0m}",
            "queues: [default]\nautoscaling: {enabled: true, targetDrainTime: 2m}"
        });
        p.put(
                "BACKSTAGE_CONFIG, BACKSTAGE_*_URL, BACKSTAGE_HTTP_PORT (the probes' port) and POD_NAME are set by the "
                        + "operator; remove them from spec.env",
                new String[] {
                    "queues: [default]\nenv: [{name: BACKSTAGE_HTTP_PORT, value: '9090'}]",
                    "queues: [default]\nenv: [{name: JAVA_TOOL_OPTIONS, value: '-Xmx256m'}]"
                });
        p.put(
                "hardTimeout must be greater than zero, e.g. 5m",
                new String[] {"queues: [default]\nhardTimeout: 0s", "queues: [default]\nhardTimeout: 5m"});
        p.put("retryBackoff.delay must be greater than zero, e.g. 1s", new String[] {
            "queues: [default]\nretryBackoff: {type: fixed, delay: 0s}",
            "queues: [default]\nretryBackoff: {type: fixed, delay: 1s}"
        });
        p.put("retryBackoff.maxDelay must be greater than zero, e.g. 5m", new String[] {
            "queues: [default]\nretryBackoff: {type: exponential, delay: 1s, maxDelay: 0s}",
            "queues: [default]\nretryBackoff: {type: exponential, delay: 1s, maxDelay: 5m}"
        });
        p.put("shutdownGracePeriod must be greater than zero, e.g. 30s", new String[] {
            "queues: [default]\nshutdownGracePeriod: 0s", "queues: [default]\nshutdownGracePeriod: 30s"
        });
        List<Case> cases = new ArrayList<>();
        t.forEach((message, m) -> cases.add(new Case(message, topology("cel", m[0]), topology("cel", m[1]))));
        p.forEach((message, m) -> cases.add(new Case(message, pool("cel", m[0]), pool("cel", m[1]))));
        return cases.stream().collect(Collectors.toList());
    }
}
