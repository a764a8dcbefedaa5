package dev.backstage.operator.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.net.ssl.SSLContext;

/** Sends AdmissionReviews to the webhook over HTTPS as the API server would, trusting only the test certificate. */
final class WebhookClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private final HttpClient http;
    private final URI base;

    WebhookClient(SSLContext trust, int port) {
        this.http = HttpClient.newBuilder()
                .sslContext(trust)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        this.base = URI.create("https://localhost:" + port);
    }

    /** An AdmissionReview (admission.k8s.io/v1) for {@code object} (and {@code old} on UPDATE). */
    static ObjectNode review(String operation, String namespace, HasMetadata object, HasMetadata old) {
        ObjectNode review = JSON.createObjectNode();
        review.put("apiVersion", "admission.k8s.io/v1");
        review.put("kind", "AdmissionReview");
        ObjectNode request = review.putObject("request");
        request.put("uid", UUID.randomUUID().toString());
        HasMetadata any = object != null ? object : old;
        ObjectNode kind = request.putObject("kind");
        kind.put("group", "backstage.dev");
        kind.put("version", "v1alpha1");
        kind.put("kind", any.getKind());
        request.put("operation", operation);
        request.put("namespace", namespace);
        request.put("name", any.getMetadata().getName());
        if (object != null) {
            request.set("object", tree(object));
        }
        if (old != null) {
            request.set("oldObject", tree(old));
        }
        return review;
    }

    private static JsonNode tree(HasMetadata object) {
        try {
            return JSON.readTree(SERIALIZATION.asJson(object));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Answer send(String path, JsonNode review) {
        return post(path, review.toString(), "application/json");
    }

    HttpResponse<String> raw(HttpRequest.Builder request) {
        try {
            return http.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(base.resolve(path));
    }

    Answer post(String path, String body, String contentType) {
        HttpResponse<String> response =
                raw(request(path).header("Content-Type", contentType).POST(HttpRequest.BodyPublishers.ofString(body)));
        return new Answer(response.statusCode(), response.body());
    }

    /** The HTTP answer, read as an AdmissionReview when it is one. */
    record Answer(int status, String body) {
        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new AssertionError("not JSON (HTTP " + status + "): " + body, e);
            }
        }

        boolean allowed() {
            return json().path("response").path("allowed").asBoolean();
        }

        String uid() {
            return json().path("response").path("uid").asText();
        }

        String message() {
            return json().path("response").path("status").path("message").asText();
        }

        List<String> warnings() {
            List<String> out = new ArrayList<>();
            json().path("response").path("warnings").forEach(w -> out.add(w.asText()));
            return out;
        }
    }
}
