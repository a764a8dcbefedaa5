package dev.backstage.operator.topology;

import static org.awaitility.Awaitility.await;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageTopologySpec;
import dev.backstage.operator.model.Condition;
import dev.backstage.operator.model.Conditions;
import dev.backstage.operator.model.KafkaTopologySettings;
import dev.backstage.operator.model.ProviderType;
import dev.backstage.operator.model.QueueSpec;
import dev.backstage.operator.model.SecretKeyReference;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/** Helpers shared by the topology reconciler tests: Secrets, topologies, waiting on Ready, reading Events. */
final class TopologyTestSupport {
    static final Duration WAIT = Duration.ofSeconds(40);
    /** Short enough that drift and recovery show up within a test, long enough not to busy the 2-core machine. */
    static final TopologySettings FAST = new TopologySettings(Duration.ofSeconds(1), 2, Duration.ofMillis(300));

    private TopologyTestSupport() {}

    static Secret secret(KubernetesClient client, String namespace, String name, String url) {
        Secret secret = new SecretBuilder()
                .withNewMetadata()
                .withNamespace(namespace)
                .withName(name)
                .endMetadata()
                .withData(Map.of("url", Base64.getEncoder().encodeToString(url.getBytes(StandardCharsets.UTF_8))))
                .build();
        return client.secrets().inNamespace(namespace).resource(secret).createOr(existing -> existing.update());
    }

    static BackstageTopology topology(
            String namespace, String name, ProviderType provider, String prefix, String secretName, String... queues) {
        BackstageTopologySpec spec = new BackstageTopologySpec();
        spec.setProvider(provider);
        spec.setConnection(new SecretKeyReference(secretName, "url"));
        spec.setKeyPrefix(prefix);
        List<QueueSpec> queueSpecs = new ArrayList<>();
        for (String queue : queues) {
            queueSpecs.add(new QueueSpec(queue, null, null));
        }
        spec.setQueues(queueSpecs);
        if (provider == ProviderType.KAFKA) {
            spec.setKafka(new KafkaTopologySettings(1, null)); // the test broker is a single node
        }
        BackstageTopology topology = new BackstageTopology();
        topology.setMetadata(
                new ObjectMetaBuilder().withNamespace(namespace).withName(name).build());
        topology.setSpec(spec);
        return topology;
    }

    static BackstageTopology get(KubernetesClient client, String namespace, String name) {
        return client.resources(BackstageTopology.class)
                .inNamespace(namespace)
                .withName(name)
                .get();
    }

    /** Waits until Ready has {@code reason} (and the status reflects the current generation). */
    static Condition awaitReady(KubernetesClient client, String namespace, String name, String reason) {
        return await("topology " + namespace + "/" + name + " Ready reason " + reason)
                .atMost(WAIT)
                .until(
                        () -> {
                            BackstageTopology t = get(client, namespace, name);
                            if (t == null
                                    || t.getStatus() == null
                                    || !t.getMetadata()
                                            .getGeneration()
                                            .equals(t.getStatus().getObservedGeneration())) {
                                return null;
                            }
                            return Conditions.find(t.getStatus().getConditions(), Conditions.READY)
                                    .filter(c -> reason.equals(c.getReason()))
                                    .orElse(null);
                        },
                        c -> c != null);
    }

    static List<Event> events(KubernetesClient client, String namespace) {
        return client.v1().events().inNamespace(namespace).list().getItems();
    }

    static List<String> eventReasons(KubernetesClient client, String namespace) {
        return events(client, namespace).stream().map(Event::getReason).toList();
    }

    /**
     * Waits for an Event with {@code reason} in the namespace. The operator writes Events in the background, one
     * object's in the order they were recorded: once the last one is there, every earlier one is too.
     */
    static void awaitEvent(KubernetesClient client, String namespace, String reason) {
        await("Event " + reason + " in " + namespace)
                .atMost(WAIT)
                .until(() -> eventReasons(client, namespace).contains(reason));
    }

    /** Everything a user can read about the topology: its status JSON and every Event message in its namespace. */
    static String visibleText(KubernetesClient client, String namespace, String name) {
        StringBuilder out = new StringBuilder(Serialization.asJson(get(client, namespace, name)));
        events(client, namespace)
                .forEach(
                        e -> out.append('\n').append(e.getReason()).append(": ").append(e.getMessage()));
        return out.toString();
    }

    /** A loopback port nothing listens on (bound, then released). */
    static int closedPort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
