package dev.backstage.runtime.rabbitmq;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.spi.Backoff;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.testsupport.RabbitMqQueues;
import dev.backstage.testsupport.UniqueNames;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The real RabbitMQ on 127.0.0.1:5672 (guest/guest) with its management API on :15672, seen from one test:
 * a unique prefix, providers and workers closed at the end, and every queue, exchange and policy under the
 * prefix deleted afterwards.
 */
final class RabbitMqTestBroker implements AutoCloseable {
    static final String URL =
            System.getenv().getOrDefault("BACKSTAGE_RABBITMQ_URL", "amqp://guest:guest@127.0.0.1:5672");
    static final String MANAGEMENT =
            System.getenv().getOrDefault("BACKSTAGE_RABBITMQ_MANAGEMENT", "http://127.0.0.1:15672");

    final String prefix = UniqueNames.prefix("rmq");
    final RabbitMqShape shape;
    private final ObjectMapper mapper = new ObjectMapper();
    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final List<String> policies = new ArrayList<>();
    private Connection raw;

    /** On the single node with classic queues. */
    RabbitMqTestBroker() {
        this(RabbitMqShape.SINGLE_CLASSIC);
    }

    RabbitMqTestBroker(RabbitMqShape shape) {
        this.shape = shape;
    }

    ProviderSettings settings(String connectionRole, Map<String, String> options) {
        Map<String, String> all = new HashMap<>(shape.options());
        all.putAll(options);
        all.putIfAbsent(RabbitMqSettings.OPTION_CONNECTION_NAME, prefix + "-" + connectionRole);
        return new ProviderSettings("rabbitmq", shape.url, prefix, null, all);
    }

    /** A provider the test owns (closed at the end); fallback delays unless the options say otherwise. */
    RabbitMqProvider provider(String connectionRole, Map<String, String> options) {
        RabbitMqProvider provider = RabbitMqProvider.connect(settings(connectionRole, options));
        closeables.add(provider);
        return provider;
    }

    List<RabbitMqProvider> ownedProviders() {
        return closeables.stream()
                .filter(RabbitMqProvider.class::isInstance)
                .map(RabbitMqProvider.class::cast)
                .toList();
    }

    RabbitMqProvider provider(String connectionRole) {
        return provider(connectionRole, Map.of());
    }

    /** A worker builder on a provider of its own (a worker closes its provider), with fast test settings. */
    Worker.Builder worker(String connectionRole, Map<String, String> options) {
        return Worker.builder()
                .provider(provider(connectionRole, options))
                .queues("default")
                .consumerId(prefix + "-" + connectionRole)
                .concurrency(4)
                .backoff(Backoff.fixed(Duration.ZERO))
                .shutdownGrace(Duration.ofSeconds(2));
    }

    Worker.Builder worker(String connectionRole) {
        return worker(connectionRole, Map.of());
    }

    <T extends AutoCloseable> T own(T closeable) {
        closeables.add(closeable);
        return closeable;
    }

    String queue(String name) {
        return prefix + "." + name;
    }

    // ---- plain AMQP, independent of the provider under test ----

    synchronized Channel channel() throws Exception {
        if (raw == null) {
            ConnectionFactory factory = new ConnectionFactory();
            factory.setUri(shape.url);
            raw = shape.addresses.isEmpty()
                    ? factory.newConnection(prefix + "-test")
                    : factory.newConnection(shape.addresses, prefix + "-test");
        }
        return raw.createChannel();
    }

    void publishRaw(String brokerQueue, String body) throws Exception {
        Channel ch = channel();
        try {
            if (!exists(brokerQueue)) {
                ch.queueDeclare(
                        brokerQueue,
                        true,
                        false,
                        false,
                        shape.queueType == QueueType.QUORUM ? Map.of(QueueArguments.QUEUE_TYPE, "quorum") : null);
            }
            ch.confirmSelect();
            ch.basicPublish(
                    "",
                    brokerQueue,
                    new AMQP.BasicProperties.Builder().deliveryMode(2).build(),
                    body.getBytes(StandardCharsets.UTF_8));
            ch.waitForConfirmsOrDie(5_000);
        } finally {
            ch.close();
        }
    }

    boolean exists(String brokerQueue) throws Exception {
        Channel ch = channel();
        try {
            ch.queueDeclarePassive(brokerQueue);
            return true;
        } catch (IOException e) {
            return false;
        } finally {
            if (ch.isOpen()) {
                ch.close();
            }
        }
    }

    long ready(String brokerQueue) throws Exception {
        Channel ch = channel();
        try {
            return ch.queueDeclarePassive(brokerQueue).getMessageCount();
        } finally {
            ch.close();
        }
    }

    /**
     * The queue's ready messages counted one by one with {@code basic.get} (not acked, so closing the channel gives
     * them back): on a quorum queue each get goes through the queue's leader, so this is the broker's own state,
     * where a passive declare of a quorum queue answers 0 when the leader is slow to answer.
     */
    long countByGet(String brokerQueue) throws Exception {
        Channel ch = channel();
        try {
            long count = 0;
            while (ch.basicGet(brokerQueue, false) != null) {
                count++;
            }
            return count;
        } finally {
            ch.close();
        }
    }

    /** Takes every ready message (acking them) and returns the bodies as JSON trees or text. */
    List<String> drain(String brokerQueue) throws Exception {
        Channel ch = channel();
        List<String> bodies = new ArrayList<>();
        try {
            GetResponse response;
            while ((response = ch.basicGet(brokerQueue, true)) != null) {
                bodies.add(new String(response.getBody(), StandardCharsets.UTF_8));
            }
        } finally {
            ch.close();
        }
        return bodies;
    }

    JsonNode json(String text) throws IOException {
        return mapper.readTree(text);
    }

    // ---- management API ----

    JsonNode get(String path) throws Exception {
        HttpResponse<String> response = http.send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException(
                    "GET " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return mapper.readTree(response.body());
    }

    private void send(String method, String path, String json) throws Exception {
        HttpRequest.BodyPublisher body =
                json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json);
        HttpResponse<String> response = http.send(
                request(path)
                        .header("Content-Type", "application/json")
                        .method(method, body)
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() >= 300 && response.statusCode() != 404) {
            throw new IllegalStateException(
                    method + " " + path + " answered " + response.statusCode() + ": " + response.body());
        }
    }

    private HttpRequest.Builder request(String path) {
        String auth = Base64.getEncoder().encodeToString("guest:guest".getBytes(StandardCharsets.UTF_8));
        return HttpRequest.newBuilder(URI.create(shape.management + path))
                .timeout(Duration.ofSeconds(10))
                .header("Authorization", "Basic " + auth);
    }

    static String enc(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** Force-closes (as an operator or a network failure would) every connection whose client name is given. */
    int closeConnectionsNamed(String clientProvidedName) throws Exception {
        int closed = 0;
        for (JsonNode connection : get("/api/connections")) {
            JsonNode name = connection.path("client_properties").path("connection_name");
            if (clientProvidedName.equals(name.asText())) {
                send("DELETE", "/api/connections/" + enc(connection.get("name").asText()), null);
                closed++;
            }
        }
        return closed;
    }

    /** Waits until the management API lists a connection with this client name (it appears with a short lag). */
    void awaitConnectionListed(String clientProvidedName) {
        await("management lists connection " + clientProvidedName)
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    for (JsonNode connection : get("/api/connections")) {
                        if (clientProvidedName.equals(connection
                                .path("client_properties")
                                .path("connection_name")
                                .asText())) {
                            return true;
                        }
                    }
                    return false;
                });
    }

    /** Applies a policy to exactly one queue and waits until the broker shows it on that queue. */
    void policyOnQueue(String brokerQueue, String definitionJson) throws Exception {
        String name = brokerQueue + "-policy";
        policies.add(name);
        String pattern = "^" + brokerQueue.replace(".", "\\\\.") + "$";
        send(
                "PUT",
                "/api/policies/%2F/" + enc(name),
                "{\"pattern\":\"" + pattern + "\",\"definition\":" + definitionJson
                        + ",\"priority\":100,\"apply-to\":\"queues\"}");
        await("policy " + name + " applied")
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> name.equals(get("/api/queues/%2F/" + enc(brokerQueue))
                        .path("policy")
                        .asText()));
    }

    JsonNode queueInfo(String brokerQueue) throws Exception {
        return get("/api/queues/%2F/" + enc(brokerQueue));
    }

    @Override
    public void close() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
        for (String policy : policies) {
            send("DELETE", "/api/policies/%2F/" + enc(policy), null);
        }
        new RabbitMqQueues(shape.url, shape.management).deleteQueuesAndExchanges(prefix);
        if (raw != null) {
            raw.close();
        }
    }
}
