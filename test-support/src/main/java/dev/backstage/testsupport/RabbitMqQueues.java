package dev.backstage.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads and removes a prefix's queues and exchanges on the test RabbitMQ through its management API (port 15672, the
 * AMQP URL's credentials), so a test can assert what the broker holds and leave nothing behind on a long-lived broker
 * (the one {@code bin/lib.sh} starts serves every run until the machine restarts).
 */
public final class RabbitMqQueues {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private final String authorization;
    private final String api;

    /** @param amqpUrl {@code amqp://user:pass@host:5672}; the management API is taken to be on the same host */
    public RabbitMqQueues(String amqpUrl) {
        this(amqpUrl, "http://" + URI.create(amqpUrl).getHost() + ":15672");
    }

    /** @param managementUrl the management API's root, e.g. {@code http://127.0.0.1:15681} for a cluster node */
    public RabbitMqQueues(String amqpUrl, String managementUrl) {
        URI uri = URI.create(amqpUrl);
        String userInfo = uri.getRawUserInfo() == null ? "guest:guest" : uri.getRawUserInfo();
        String[] parts = userInfo.split(":", 2);
        String credentials = URLDecoder.decode(parts[0], StandardCharsets.UTF_8) + ":"
                + (parts.length > 1 ? URLDecoder.decode(parts[1], StandardCharsets.UTF_8) : "");
        this.authorization =
                "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8));
        this.api = managementUrl + "/api/";
    }

    /** The names of the queues in vhost {@code /} that start with {@code prefix + "."}. */
    public Set<String> names(String prefix) throws IOException, InterruptedException {
        return names("queues", prefix);
    }

    /** The names of the exchanges in vhost {@code /} that start with {@code prefix + "."}. */
    public Set<String> exchangeNames(String prefix) throws IOException, InterruptedException {
        return names("exchanges", prefix);
    }

    /**
     * The management API's view of queue {@code name} in vhost {@code /}: {@code type}, {@code members} and
     * {@code leader} of a quorum queue, {@code messages}, {@code arguments}.
     */
    public JsonNode queue(String name) throws IOException, InterruptedException {
        String url = api + "queues/%2F/"
                + URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20");
        HttpResponse<String> response = HTTP.send(request(url).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("GET " + url + " answered " + response.statusCode() + ": " + response.body());
        }
        return JSON.readTree(response.body());
    }

    /** Deletes every queue and exchange of the prefix. */
    public void deleteQueuesAndExchanges(String prefix) throws IOException, InterruptedException {
        delete("queues", prefix);
        delete("exchanges", prefix);
    }

    private Set<String> names(String kind, String prefix) throws IOException, InterruptedException {
        String url = api + kind + "/%2F?columns=name";
        HttpResponse<String> response = HTTP.send(request(url).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("GET " + url + " answered " + response.statusCode() + ": " + response.body());
        }
        Set<String> out = new TreeSet<>();
        for (JsonNode item : JSON.readTree(response.body())) {
            String name = item.path("name").asText();
            if (name.startsWith(prefix + ".")) {
                out.add(name);
            }
        }
        return out;
    }

    private void delete(String kind, String prefix) throws IOException, InterruptedException {
        Set<String> names = names(kind, prefix);
        for (String name : names) {
            String url = api + kind + "/%2F/"
                    + URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20");
            HttpResponse<String> response =
                    HTTP.send(request(url).DELETE().build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 204 && response.statusCode() != 404) {
                throw new IOException("DELETE " + url + " answered " + response.statusCode() + ": " + response.body());
            }
        }
    }

    private HttpRequest.Builder request(String url) {
        return HttpRequest.newBuilder(URI.create(url)).header("Authorization", authorization);
    }
}
