package dev.backstage.operator.admission;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponse;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.javaoperatorsdk.webhook.admission.AdmissionController;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One webhook path: reads an AdmissionReview, hands it to the framework's {@link AdmissionController}, writes the
 * answer. Whatever arrives, the caller gets a clean answer and never a 500 or a hang: an AdmissionReview with
 * {@code allowed: false} and a message when the request's uid can be read (the API server needs it to match the
 * answer), else HTTP 400 with a plain-text message.
 */
public final class AdmissionEndpoint implements HttpHandler {
    /** Far above any CR we accept (the API server's own request limit is 3 MiB), small enough to hold in memory. */
    static final int MAX_BODY_BYTES = 4 * 1024 * 1024;

    static final String API_VERSION = "admission.k8s.io/v1";
    static final String KIND = "AdmissionReview";

    private static final Logger LOG = LoggerFactory.getLogger(AdmissionEndpoint.class);

    private final String kind;
    private final AdmissionController<?> controller;
    private final KubernetesSerialization serialization;
    private final ObjectMapper mapper;

    public AdmissionEndpoint(ValidatingRequestHandler<?> handler, KubernetesSerialization serialization) {
        this.kind = handler.kind();
        this.controller = new AdmissionController<>(handler);
        this.serialization = Objects.requireNonNull(serialization, "serialization");
        this.mapper = new ObjectMapper();
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            try {
                answer(exchange);
            } catch (IOException e) {
                // The caller went away mid-request; nothing can be sent.
                LOG.info("admission request for {} aborted: {}", kind, e.toString());
            } catch (RuntimeException e) {
                LOG.error("admission request for {} failed unexpectedly", kind, e);
                plain(
                        exchange,
                        400,
                        "could not handle the request: " + e.getClass().getSimpleName());
            }
        }
    }

    private void answer(HttpExchange exchange) throws IOException {
        if (!"POST".equals(exchange.getRequestMethod())) {
            exchange.getResponseHeaders().set("Allow", "POST");
            plain(
                    exchange,
                    400,
                    "expected POST with an " + KIND + " (" + API_VERSION + ") JSON body, got "
                            + exchange.getRequestMethod());
            return;
        }
        String declaredLength = exchange.getRequestHeaders().getFirst("Content-Length");
        if (declaredLength != null && tooLong(declaredLength)) {
            // Refused before reading a byte of it; the server closes the connection rather than drain it.
            exchange.getResponseHeaders().set("Connection", "close");
            plain(
                    exchange,
                    413,
                    "request body of " + declaredLength.trim() + " bytes is larger than the limit of " + MAX_BODY_BYTES
                            + " bytes");
            return;
        }
        byte[] body = readBounded(exchange.getRequestBody());
        if (body == null) {
            exchange.getResponseHeaders().set("Connection", "close");
            plain(exchange, 413, "request body larger than the limit of " + MAX_BODY_BYTES + " bytes");
            return;
        }
        if (body.length == 0) {
            plain(exchange, 400, "empty body: expected an " + KIND + " (" + API_VERSION + ") JSON object");
            return;
        }
        JsonNode tree;
        try {
            tree = mapper.readTree(body);
        } catch (JsonProcessingException e) {
            plain(exchange, 400, "body is not JSON: " + e.getOriginalMessage());
            return;
        }
        if (tree == null || !tree.isObject()) {
            plain(exchange, 400, "body is not a JSON object: expected an " + KIND);
            return;
        }
        JsonNode request = tree.get("request");
        if (request == null || !request.isObject()) {
            plain(exchange, 400, KIND + " has no request object");
            return;
        }
        JsonNode uidNode = request.get("uid");
        if (uidNode == null || !uidNode.isTextual() || uidNode.asText().isBlank()) {
            plain(exchange, 400, KIND + " request has no uid");
            return;
        }
        String uid = uidNode.asText();
        String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
        if (contentType == null || !contentType.toLowerCase(Locale.ROOT).startsWith("application/json")) {
            review(
                    exchange,
                    uid,
                    ValidatingRequestHandler.denied(
                            List.of("Content-Type must be application/json, got " + contentType)));
            return;
        }
        if (!KIND.equals(tree.path("kind").asText())
                || !API_VERSION.equals(tree.path("apiVersion").asText())) {
            review(
                    exchange,
                    uid,
                    ValidatingRequestHandler.denied(List.of("expected kind " + KIND + " apiVersion "
                            + API_VERSION + ", got kind '" + tree.path("kind").asText() + "' apiVersion '"
                            + tree.path("apiVersion").asText() + "'")));
            return;
        }
        AdmissionReview review;
        try {
            review = serialization.convertValue(tree, AdmissionReview.class);
        } catch (RuntimeException e) {
            review(
                    exchange,
                    uid,
                    ValidatingRequestHandler.denied(
                            List.of("could not read the request as a " + kind + ": " + rootMessage(e))));
            return;
        }
        AdmissionResponse response;
        try {
            response = controller.handle(review).getResponse();
        } catch (RuntimeException e) {
            LOG.error("validating {} (uid {}) failed", kind, uid, e);
            response = ValidatingRequestHandler.denied(List.of("validation failed inside the operator ("
                    + e.getClass().getSimpleName() + ": " + e.getMessage() + "); retry, or report it"));
        }
        review(exchange, uid, response);
    }

    private void review(HttpExchange exchange, String uid, AdmissionResponse response) throws IOException {
        response.setUid(uid);
        AdmissionReview out = new AdmissionReview();
        out.setApiVersion(API_VERSION);
        out.setKind(KIND);
        out.setResponse(response);
        byte[] bytes = serialization.asJson(out).getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, bytes.length);
        try (OutputStream os = exchange.getResponseBody()) {
            os.write(bytes);
        }
    }

    private static void plain(HttpExchange exchange, int code, String message) throws IOException {
        byte[] bytes = (message + "\n").getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(code, bytes.length);
        try (OutputStream os = exchange.getResponseBody()) {
            os.write(bytes);
        }
    }

    private static boolean tooLong(String contentLength) {
        try {
            return Long.parseLong(contentLength.trim()) > MAX_BODY_BYTES;
        } catch (NumberFormatException e) {
            return false; // the server itself rejects a malformed length
        }
    }

    /** The body, or null when it exceeds {@link #MAX_BODY_BYTES} (a chunked body declares no length). */
    private static byte[] readBounded(InputStream in) throws IOException {
        byte[] bytes = in.readNBytes(MAX_BODY_BYTES + 1);
        return bytes.length > MAX_BODY_BYTES ? null : bytes;
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        // Jackson appends the whole source location; the first line says what was wrong.
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
