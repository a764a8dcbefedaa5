package dev.backstage.runtime.main;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.TaskModule;
import dev.backstage.runtime.config.RuntimeConfigFiles;
import dev.backstage.runtime.redis.RedisTestSupport;
import dev.backstage.testsupport.MetricNames;
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
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The worker's metric names as its {@code /metrics} really exposes them (Micrometer's Prometheus registry adds
 * {@code _total} to counters and {@code _seconds} to timers), after a run that moves every one of them: the
 * names the README documents and every {@code backstage_} name the chart's Grafana dashboard queries.
 */
@Tag("broker")
class MetricNamesTest {
    /** What the README lists for the runtime. */
    static final List<String> DOCUMENTED = List.of(
            "backstage_deliveries_total",
            "backstage_acks_total",
            "backstage_retries_total",
            "backstage_dead_letters_total",
            "backstage_chained_total",
            "backstage_in_flight",
            "backstage_handler_latency_seconds_count",
            "backstage_handler_latency_seconds_sum");

    private final RedisTestSupport redis = new RedisTestSupport();

    @AfterEach
    void tearDown() {
        redis.close();
    }

    @Test
    void givenAckedChainedRetriedAndDeadLetteredJobs_thenTheDocumentedAndChartedNamesAreExposed() throws Exception {
        AtomicInteger receipts = new AtomicInteger();
        AtomicInteger failures = new AtomicInteger();
        TaskModule module = binder -> {
            binder.task("processOrder", Map.class, (ctx, p) -> Next.task("sendReceipt", p));
            binder.task("sendReceipt", Map.class, (ctx, p) -> {
                receipts.incrementAndGet();
                return Next.done();
            });
            binder.task("alwaysFails", Map.class, (ctx, p) -> {
                failures.incrementAndGet();
                throw new IllegalStateException("boom");
            });
        };
        var config = RuntimeConfigFiles.parse("""
                provider: {name: redis, urlEnv: MY_REDIS, prefix: %s}
                worker:
                  queues: [default]
                  concurrency: 2
                  maxDeliveries: 2
                  backoff: {type: fixed, delayMs: 10}
                  shutdownGraceMs: 2000
                server: {port: 0}
                """.formatted(redis.prefix()));
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        var built = new WorkerFromConfig(Map.of("MY_REDIS", RedisTestSupport.URL)::get)
                .build(config, List.of(module), registry);
        try (HealthServer health = new HealthServer(
                0, built.worker()::failure, built.worker()::isRunning, built.provider()::health, registry)) {
            built.worker().start();
            built.worker().enqueue("processOrder", Map.of("orderId", "o-1"), EnqueueOptions.defaults());
            built.worker().enqueue("alwaysFails", Map.of("orderId", "o-2"), EnqueueOptions.defaults());
            await().atMost(Duration.ofSeconds(30))
                    .until(() ->
                            receipts.get() == 1 && redis.redis().xlen(redis.prefix() + ":default:dead-letter") == 1);
            assertTrue(failures.get() >= 2, "retried before the dead letter: " + failures.get());

            HttpClient http = HttpClient.newHttpClient();
            String body = http.send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + health.port() + "/metrics"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            Set<String> exposed = MetricNames.exposed(body);
            System.out.println("runtime /metrics names: " + exposed);

            Set<String> missing = new TreeSet<>(DOCUMENTED);
            missing.removeAll(exposed);
            assertTrue(missing.isEmpty(), "documented but not exposed: " + missing + "; exposed: " + exposed);
            assertTrue(body.contains("backstage_chained_total 1.0"), body);
            assertTrue(body.lines().anyMatch(l -> l.matches("backstage_retries_total [1-9][0-9]*\\.0")), body);
            assertTrue(body.contains("backstage_dead_letters_total 1.0"), body);

            Set<String> charted = MetricNames.inDashboards("backstage_");
            assertFalse(charted.isEmpty(), "the dashboard queries the worker's metrics");
            Set<String> notExposed = new TreeSet<>(charted);
            notExposed.removeAll(exposed);
            assertTrue(notExposed.isEmpty(), "the dashboard queries names the worker does not expose: " + notExposed);
        } finally {
            built.worker().close();
        }
    }
}
