package dev.backstage.runtime.kafka;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.main.HealthServer;
import dev.backstage.runtime.redis.RedisDelays;
import dev.backstage.runtime.redis.RedisTestSupport;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A poll loop that stops for good makes the worker report it, and /healthz fail with the reason. */
@Tag("broker")
class KafkaLivenessTest {
    record Job(int n) {}

    private final KafkaTestSupport kafka = new KafkaTestSupport();
    private final RedisTestSupport redis = new RedisTestSupport();
    private final List<Worker> workers = new CopyOnWriteArrayList<>();
    private final java.util.concurrent.atomic.AtomicInteger handled = new java.util.concurrent.atomic.AtomicInteger();

    @AfterEach
    void tearDown() {
        workers.forEach(Worker::close);
        kafka.close();
        redis.close();
    }

    private Worker worker() {
        Worker worker = Worker.builder()
                .provider(kafka.provider())
                .delays(RedisDelays.connect(redis.settings()))
                .queues("jobs")
                .consumerId("pod-0")
                .concurrency(2)
                .shutdownGrace(Duration.ofSeconds(2))
                .build();
        worker.register("work", Job.class, (ctx, job) -> {
            handled.incrementAndGet();
            return Next.done();
        });
        workers.add(worker);
        return worker;
    }

    @Test
    void givenAWorkerFencedByAnotherWithTheSamePodName_thenItsHealthFailsWithTheReason() throws Exception {
        kafka.createTopic(kafka.topic("jobs"), 1);
        Worker first = worker().start();
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (HealthServer health = new HealthServer(
                0, first::failure, first::isRunning, () -> dev.backstage.runtime.spi.ProviderHealth.ok(), registry)) {
            HttpClient http = HttpClient.newHttpClient();
            String url = "http://127.0.0.1:" + health.port() + "/healthz";
            assertEquals(200, get(http, url).statusCode());
            // The first member holds the partition (it ran a job) before the second one joins: otherwise both join
            // at once and either may be the one fenced.
            first.enqueue("work", new Job(1), dev.backstage.runtime.api.EnqueueOptions.onQueue("jobs"));
            await().atMost(Duration.ofSeconds(60)).until(() -> handled.get() == 1);

            worker().start(); // same group.instance.id: the group fences the first member
            System.out.println("waiting for the first worker's poll loop to be fenced");
            await().atMost(Duration.ofSeconds(120)).until(() -> first.failure().isPresent());
            assertTrue(first.failure().get().contains("fenced"), first.failure().get());
            HttpResponse<String> answer = get(http, url);
            assertEquals(503, answer.statusCode());
            assertTrue(answer.body().contains("same instance id"), answer.body());
        }
    }

    private static HttpResponse<String> get(HttpClient http, String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
