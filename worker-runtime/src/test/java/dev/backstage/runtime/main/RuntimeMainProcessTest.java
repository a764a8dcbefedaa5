package dev.backstage.runtime.main;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.redis.RedisTestSupport;
import java.io.File;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The container main as Kubernetes runs it: its own JVM, probes on a port, SIGTERM to stop. */
class RuntimeMainProcessTest {
    private final RedisTestSupport redis = new RedisTestSupport();
    private Process process;

    @AfterEach
    void tearDown() throws Exception {
        if (process != null && process.isAlive()) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        redis.close();
    }

    @Test
    void givenARunningRuntime_whenItGetsSigterm_thenItDrainsAndExitsWithStatusZero() throws Exception {
        Path config = Files.createTempFile("runtime", ".yaml");
        Files.writeString(config, """
                provider:
                  name: redis
                  urlEnv: MY_REDIS
                  prefix: %s
                worker:
                  queues: [orders]
                  shutdownGraceMs: 2000
                """.formatted(redis.prefix()));
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                RuntimeMain.class.getName(), config.toString())
                .redirectErrorStream(true).redirectOutput(new File("target/runtime-main-sigterm.log"));
        builder.environment().put("MY_REDIS", RedisTestSupport.URL);
        builder.environment().put("BACKSTAGE_HTTP_PORT", Integer.toString(port));
        process = builder.start();
        HttpClient http = HttpClient.newHttpClient();
        System.out.println("waiting for the runtime's /readyz on :" + port);
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz")).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode() == 200);

        process.destroy(); // SIGTERM
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the runtime exits after SIGTERM");
        assertEquals(0, process.exitValue(), "a clean drain exits 0, not 143; see target/runtime-main-sigterm.log");
    }
}
