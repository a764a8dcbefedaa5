package dev.backstage.runtime.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.File;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Acks that fail during a Redis outage are sent again once Redis is back, instead of leaving the entries pending
 * until the idle threshold runs them a second time. Uses a Redis of its own (with an append-only file, so a
 * restart keeps the streams), since the test stops it.
 */
@Tag("broker")
class RedisAckRetryTest {
    private static final int JOBS = 40;

    private Process server;
    private Path dir;
    private int port;
    private Worker worker;

    @AfterEach
    void tearDown() throws Exception {
        if (worker != null) {
            worker.close();
        }
        if (server != null) {
            server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private void startServer() throws Exception {
        server = new ProcessBuilder(
                        "redis-server",
                        "--port",
                        Integer.toString(port),
                        "--bind",
                        "127.0.0.1",
                        "--dir",
                        dir.toString(),
                        "--appendonly",
                        "yes",
                        "--appendfsync",
                        "always",
                        "--save",
                        "")
                .redirectErrorStream(true)
                .redirectOutput(new File("target/redis-ack-retry-server.log"))
                .start();
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> {
            RedisClient client = RedisClient.create("redis://127.0.0.1:" + port);
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                return "PONG".equals(c.sync().ping());
            } finally {
                client.shutdown();
            }
        });
    }

    private long pending(String stream) {
        RedisClient client = RedisClient.create("redis://127.0.0.1:" + port);
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            return c.sync().xpending(stream, "backstage-workers").getCount();
        } finally {
            client.shutdown();
        }
    }

    @Test
    void givenJobsThatFinishWhileRedisIsDown_whenRedisComesBack_thenTheirAcksGoThroughAndNoneRunsTwice()
            throws Exception {
        dir = Files.createTempDirectory("redis-ack-retry");
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        startServer();
        CountDownLatch release = new CountDownLatch(1);
        Map<Integer, AtomicInteger> runs = new ConcurrentHashMap<>();
        AtomicInteger finished = new AtomicInteger();
        // The default 60 s idle threshold: an entry whose ack was lost would run again only after it.
        RedisProvider provider = RedisProvider.connect("redis://127.0.0.1:" + port);
        worker = Worker.builder()
                .provider(provider)
                .queues("default")
                .consumerId("acker")
                .concurrency(JOBS)
                .shutdownGrace(Duration.ofSeconds(2))
                .build();
        worker.register("work", Map.class, (ctx, job) -> {
            runs.computeIfAbsent(((Number) job.get("n")).intValue(), n -> new AtomicInteger())
                    .incrementAndGet();
            release.await();
            finished.incrementAndGet();
            return Next.done();
        });
        worker.start();
        for (int n = 0; n < JOBS; n++) {
            worker.enqueue("work", Map.of("n", n), EnqueueOptions.onQueue("default"));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> worker.inFlight() == JOBS);

        server.destroyForcibly().waitFor(10, TimeUnit.SECONDS); // Redis goes away with every entry pending
        release.countDown(); // the jobs finish during the outage: their acks fail
        await().atMost(Duration.ofSeconds(30)).until(() -> finished.get() == JOBS);
        // The acks wait in lettuce's buffer until the 10 s command timeout fails them.
        System.out.println("Redis is down; waiting for the acks to fail before restarting it");
        RedisConsumer consumer = ((RedisJobs) provider.jobs()).consumers().get(0);
        await().atMost(Duration.ofSeconds(40)).until(() -> consumer.settler().acksRetrying() == JOBS);
        startServer();
        System.out.println("Redis is back; waiting for the retried acks");

        await().atMost(Duration.ofSeconds(30)).until(() -> pending("backstage:default") == 0);
        assertEquals(JOBS, runs.size());
        runs.forEach((n, count) -> assertEquals(1, count.get(), "job " + n + " ran " + count.get() + " times"));
    }
}
