package dev.backstage.runtime.main;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** What the tests that run {@link RuntimeMain} in its own JVM share: its config on Redis, its port, its readiness. */
final class RuntimeMainFixture {
    private RuntimeMainFixture() {}

    /** A runtime.yaml on Redis (URL from {@code MY_REDIS}) under {@code prefix}, queue {@code orders}, 2 s grace. */
    static Path redisConfig(Path file, String prefix) throws IOException {
        Files.writeString(file, """
                provider:
                  name: redis
                  urlEnv: MY_REDIS
                  prefix: %s
                worker:
                  queues: [orders]
                  shutdownGraceMs: 2000
                """.formatted(prefix));
        return file;
    }

    static int freePort() throws IOException {
        try (ServerSocket free = new ServerSocket(0)) {
            return free.getLocalPort();
        }
    }

    /** Waits (up to 60 s) until the main's {@code /readyz} on {@code port} answers 200. */
    static void awaitReady(int port) {
        HttpClient http = HttpClient.newHttpClient();
        System.out.println("waiting for the runtime's /readyz on :" + port);
        await().atMost(Duration.ofSeconds(60))
                .ignoreExceptions()
                .until(() -> http.send(
                                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
                                                .build(),
                                        HttpResponse.BodyHandlers.ofString())
                                .statusCode()
                        == 200);
    }
}
