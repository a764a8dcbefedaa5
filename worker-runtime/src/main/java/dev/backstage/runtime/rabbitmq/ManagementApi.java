package dev.backstage.runtime.rabbitmq;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.backstage.runtime.spi.ConnectionFailure;
import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLContext;

/**
 * The little of the RabbitMQ management HTTP API the backlog probe needs: one queue's ready and unacked
 * counts ({@code GET /api/queues/{vhost}/{name}}). The broker refreshes these figures on its statistics
 * interval (5 s by default), so they lag the queue slightly; AMQP alone can only count ready messages.
 */
final class ManagementApi {
    /** One node's API root (without credentials) and the Authorization header for it. */
    private record Endpoint(URI base, String authorization) {}

    private final List<Endpoint> endpoints;
    private volatile int preferred;
    private final HttpClient http;
    private final ObjectMapper mapper;

    /**
     * Figures for one queue; null where the broker has not collected statistics yet (a new queue).
     *
     * @param published messages ever routed into the queue ({@code message_stats.publish}), a counter; null while
     *                  the broker keeps no message statistics for it (no traffic yet, or {@code rates_mode = none})
     * @param acked     messages consumers acknowledged ({@code message_stats.ack}); null as for {@code published}
     */
    record QueueStats(
            Long ready, Long unacked, Long total, Long headMessageTimestampSeconds, Long published, Long acked) {
        boolean complete() {
            return ready != null && unacked != null;
        }
    }

    /** The API could not answer (not enabled, unreachable, credentials refused). */
    static final class UnavailableException extends Exception {
        UnavailableException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * @param configured the API root; credentials in its user-info win over the AMQP ones
     * @param tls        the AMQP connection's CA bundle and client certificate, for an https:// root; null for the
     *                   JDK's defaults (the JDK's client always verifies the host name)
     */
    ManagementApi(URI configured, String amqpUser, String amqpPassword, SSLContext tls, ObjectMapper mapper) {
        this(List.of(configured), amqpUser, amqpPassword, tls, mapper);
    }

    /**
     * A cluster's nodes: each call asks the node that answered last, and the others in turn when it does not answer,
     * so the figures keep coming while any one node is down (every node reports every queue of the cluster).
     */
    ManagementApi(List<URI> configured, String amqpUser, String amqpPassword, SSLContext tls, ObjectMapper mapper) {
        this.endpoints = configured.stream()
                .map(uri -> endpoint(uri, amqpUser, amqpPassword))
                .toList();
        // HTTP/1.1: the broker's web server does not take the h2c upgrade the JDK client tries by default.
        HttpClient.Builder http =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2));
        if (tls != null) {
            http.sslContext(tls);
        }
        this.http = http.build();
        this.mapper = mapper;
    }

    private static Endpoint endpoint(URI configured, String amqpUser, String amqpPassword) {
        String user = amqpUser;
        String password = amqpPassword;
        if (configured.getRawUserInfo() != null) {
            String[] parts = configured.getRawUserInfo().split(":", 2);
            user = URLDecoder.decode(parts[0], StandardCharsets.UTF_8);
            password = parts.length > 1 ? URLDecoder.decode(parts[1], StandardCharsets.UTF_8) : "";
        }
        URI base = URI.create(configured.getScheme() + "://" + configured.getHost()
                + (configured.getPort() > 0 ? ":" + configured.getPort() : "")
                + (configured.getRawPath() == null
                        ? ""
                        : configured.getRawPath().replaceAll("/+$", "")));
        return new Endpoint(
                base,
                "Basic "
                        + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
    }

    /** The API root without credentials (the node that answered last), for messages. */
    URI base() {
        return endpoints.get(preferred).base();
    }

    /** The queue's figures, or empty when the queue does not exist; asks the next node when one does not answer. */
    Optional<QueueStats> queue(String vhost, String name) throws UnavailableException {
        int first = preferred;
        UnavailableException last = null;
        for (int i = 0; i < endpoints.size(); i++) {
            int index = (first + i) % endpoints.size();
            try {
                Optional<QueueStats> stats = queue(endpoints.get(index), vhost, name);
                preferred = index;
                return stats;
            } catch (UnavailableException e) {
                last = e;
            }
        }
        throw last;
    }

    private Optional<QueueStats> queue(Endpoint endpoint, String vhost, String name) throws UnavailableException {
        URI base = endpoint.base();
        URI uri = URI.create(base + "/api/queues/" + encode(vhost) + "/" + encode(name));
        HttpRequest request = HttpRequest.newBuilder(uri)
                .timeout(Duration.ofSeconds(5))
                .header("Authorization", endpoint.authorization())
                .header("Accept", "application/json")
                .GET()
                .build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UnavailableException(
                    ConnectionFailure.label(e) + "management API at " + base + " unreachable: "
                            + RabbitMqConnections.describe(e),
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UnavailableException("interrupted while calling the management API", e);
        }
        if (response.statusCode() == 404) {
            return Optional.empty();
        }
        if (response.statusCode() != 200) {
            throw new UnavailableException(
                    (response.statusCode() == 401 ? ConnectionFailure.AUTHENTICATION_FAILED.reason() + ": " : "")
                            + "management API at " + base + " answered HTTP " + response.statusCode()
                            + (response.statusCode() == 401
                                    ? " (credentials refused, or the user lacks the management tag)"
                                    : ""),
                    null);
        }
        try {
            JsonNode queue = mapper.readTree(response.body());
            // message_stats appears with the queue's first message event; from then on a counter it lacks is
            // an event that has not happened yet (no ack so far), which is 0, not unknown.
            JsonNode events = queue.get("message_stats");
            boolean counting = events != null && events.isObject();
            Long published = counting ? orZero(number(events, "publish")) : null;
            Long acked = counting ? orZero(number(events, "ack")) : null;
            return Optional.of(new QueueStats(
                    number(queue, "messages_ready"),
                    number(queue, "messages_unacknowledged"),
                    number(queue, "messages"),
                    number(queue, "head_message_timestamp"),
                    published,
                    acked));
        } catch (IOException e) {
            throw new UnavailableException("management API at " + base + " answered something that is not JSON", e);
        }
    }

    private static Long number(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value != null && value.canConvertToLong() ? value.asLong() : null;
    }

    private static Long orZero(Long value) {
        return value == null ? 0L : value;
    }

    private static String encode(String segment) {
        return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
