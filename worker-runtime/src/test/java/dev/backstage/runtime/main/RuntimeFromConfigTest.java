package dev.backstage.runtime.main;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.TaskModule;
import dev.backstage.runtime.config.RuntimeConfig;
import dev.backstage.runtime.config.RuntimeConfigFiles;
import dev.backstage.runtime.redis.RedisTestSupport;
import dev.backstage.runtime.spi.ConfigurationException;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The container main's wiring: runtime.yaml + env → a running worker with health and metrics. */
@Tag("broker")
class RuntimeFromConfigTest {
    private final RedisTestSupport redis = new RedisTestSupport();

    @AfterEach
    void tearDown() {
        redis.close();
    }

    private String yaml() {
        return """
                provider:
                  name: redis
                  urlEnv: MY_REDIS
                  prefix: %s
                worker:
                  queues: [orders]
                  concurrency: 4
                  maxDeliveries: 2
                  backoff: {type: fixed, delayMs: 20}
                  shutdownGraceMs: 2000
                server:
                  port: 0
                """.formatted(redis.prefix());
    }

    @Test
    void givenARenderedConfigAndTheSecretInEnv_thenTheWorkerProcessesJobsAndServesHealthAndMetrics() throws Exception {
        Set<String> done = ConcurrentHashMap.newKeySet();
        TaskModule module = binder -> binder.task("processOrder", Map.class, (ctx, p) -> {
            done.add(String.valueOf(p.get("orderId")));
            return Next.done();
        });
        RuntimeConfig config = RuntimeConfigFiles.parse(yaml());
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        var built = new WorkerFromConfig(Map.of("MY_REDIS", RedisTestSupport.URL)::get)
                .build(config, List.of(module), registry);
        try (HealthServer health = new HealthServer(
                0, built.worker()::failure, built.worker()::isRunning, built.provider()::health, registry)) {
            HttpClient http = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + health.port();
            assertEquals(503, get(http, base + "/readyz").statusCode(), "not ready before the worker runs");
            built.worker().start();
            built.worker()
                    .enqueue(
                            "processOrder",
                            Map.of("orderId", "o-1"),
                            dev.backstage.runtime.api.EnqueueOptions.onQueue("orders"));
            await().atMost(Duration.ofSeconds(60)).until(() -> done.contains("o-1"));
            assertEquals(200, get(http, base + "/healthz").statusCode());
            assertEquals(200, get(http, base + "/readyz").statusCode());
            String metrics = get(http, base + "/metrics").body();
            assertTrue(metrics.contains("backstage_deliveries_total 1.0"), metrics);
            assertTrue(metrics.contains("backstage_in_flight"), metrics);
            assertTrue(metrics.contains("backstage_handler_latency_seconds_count 1"), metrics);
        } finally {
            built.worker().close();
        }
    }

    private static HttpResponse<String> get(HttpClient http, String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void givenTheSecretEnvIsMissing_thenTheErrorNamesTheVariable() {
        RuntimeConfig config = RuntimeConfigFiles.parse(yaml());
        ConfigurationException e = assertThrows(
                ConfigurationException.class,
                () -> new WorkerFromConfig(Map.<String, String>of()::get).build(config, List.of(), null));
        assertTrue(e.getMessage().contains("environment variable MY_REDIS"), e.getMessage());
    }

    @Test
    void givenAnUnknownField_thenParsingFailsNamingIt() {
        ConfigurationException e = assertThrows(
                ConfigurationException.class, () -> RuntimeConfigFiles.parse("worker:\n  concurrenccy: 3\n"));
        assertTrue(e.getMessage().contains("concurrenccy"), e.getMessage());
    }
}
