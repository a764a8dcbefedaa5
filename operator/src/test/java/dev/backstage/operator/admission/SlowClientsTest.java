package dev.backstage.operator.admission;

import static dev.backstage.operator.admission.WebhookClient.review;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.backstage.operator.testing.BackstageFixtures;
import dev.backstage.operator.testing.MockKubernetes;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Callers that connect, send their headers and stall (a slow or hostile client, a half-dead proxy) must not keep the
 * API server's admission calls from being answered: with the chart's {@code failurePolicy: Fail} a frozen webhook
 * rejects every create and update of our resources.
 */
class SlowClientsTest {
    /** Far beyond any answer of a healthy webhook, so only a webhook that does not answer runs into it. */
    private static final int CLIENT_READ_TIMEOUT_MS = 30_000;

    private static MockKubernetes mock;
    private static SelfSignedCertificate certificate;
    private static Path tls;
    private final List<SSLSocket> stalled = new ArrayList<>();

    @BeforeAll
    static void start() throws IOException {
        mock = MockKubernetes.start();
        tls = Files.createTempDirectory("webhook-slow-clients");
        certificate = SelfSignedCertificate.generate("EC");
        certificate.writeTo(tls);
    }

    @AfterAll
    static void stop() {
        mock.close();
    }

    @AfterEach
    void closeStalled() {
        for (SSLSocket socket : stalled) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // already closed by the server
            }
        }
        stalled.clear();
    }

    @Test
    void givenEightClientsStalledAfterTheirHeaders_whenAReviewArrives_thenItIsAnswered() throws Exception {
        try (WebhookServer server = server(WebhookLimits.DEFAULT)) {
            for (int i = 0; i < 8; i++) {
                stalled.add(stallAfterHeaders(server.port(), "Content-Length: 1000"));
            }
            ObjectNode review = review(
                    "CREATE",
                    "slow-clients",
                    BackstageFixtures.redisTopology("slow-clients", "orders", "default"),
                    null);
            WebhookClient.Answer answer = new WebhookClient(certificate.trustingContext(), server.port())
                    .send(WebhookServer.TOPOLOGY_PATH, review);

            assertEquals(200, answer.status(), answer.body());
            assertTrue(answer.allowed(), answer.body());
            assertEquals(review.path("request").path("uid").asText(), answer.uid());
        }
    }

    @Test
    void givenMoreStalledClientsThanThreads_thenEachIsCutOffAtTheDeadlineAndReviewsAreAnsweredAgain() throws Exception {
        try (WebhookServer server = server(new WebhookLimits(2, 8, Duration.ofSeconds(2)))) {
            // Four stalled clients on two threads: the last two are only served once the first two were cut off.
            for (int i = 0; i < 4; i++) {
                stalled.add(stallAfterHeaders(server.port(), "Content-Length: 1000"));
            }
            for (SSLSocket socket : stalled) {
                assertClosedByTheServer(socket);
            }

            WebhookClient.Answer answer = new WebhookClient(certificate.trustingContext(), server.port())
                    .send(
                            WebhookServer.TOPOLOGY_PATH,
                            review(
                                    "CREATE",
                                    "slow-clients",
                                    BackstageFixtures.redisTopology("slow-clients", "orders", "default"),
                                    null));
            assertTrue(answer.allowed(), answer.body());
        }
    }

    @Test
    void givenABodyDeclaredLargerThanTheLimit_thenHttp413BeforeAnyOfItIsRead() throws Exception {
        try (WebhookServer server = server(WebhookLimits.DEFAULT)) {
            SSLSocket socket =
                    stallAfterHeaders(server.port(), "Content-Length: " + (AdmissionEndpoint.MAX_BODY_BYTES + 1L));
            stalled.add(socket);
            BufferedReader in =
                    new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            String statusLine;
            try {
                statusLine = in.readLine();
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the webhook waited for a body it must refuse by its declared length", e);
            }
            assertEquals("HTTP/1.1 413 Request Entity Too Large", statusLine);
        }
    }

    private static WebhookServer server(WebhookLimits limits) throws Exception {
        WebhookServer server = new WebhookServer(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), tls, mock.client(), limits);
        server.start();
        return server;
    }

    /** A client that completes TLS, sends a POST's headers (and one byte of a JSON body) and then sends nothing. */
    private static SSLSocket stallAfterHeaders(int port, String lengthHeader) throws IOException {
        SSLSocket socket = (SSLSocket)
                certificate.trustingContext().getSocketFactory().createSocket(InetAddress.getLoopbackAddress(), port);
        socket.setSoTimeout(CLIENT_READ_TIMEOUT_MS);
        socket.startHandshake();
        OutputStream out = socket.getOutputStream();
        out.write(("POST " + WebhookServer.POOL_PATH + "?timeout=10s HTTP/1.1\r\n"
                        + "Host: localhost:" + port + "\r\n"
                        + "Content-Type: application/json\r\n"
                        + lengthHeader + "\r\n"
                        + "\r\n{")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return socket;
    }

    /** The server closed the connection: the read ends (end of stream or a reset), it does not time out. */
    private static void assertClosedByTheServer(SSLSocket socket) {
        try {
            int read = socket.getInputStream().read();
            assertEquals(-1, read, "the server answered a request it never received in full");
        } catch (SocketTimeoutException e) {
            fail("a stalled client still holds its connection " + CLIENT_READ_TIMEOUT_MS + " ms later: " + e);
        } catch (IOException closed) {
            // reset or TLS closed without close_notify: the server dropped it, as it should
        }
    }
}
