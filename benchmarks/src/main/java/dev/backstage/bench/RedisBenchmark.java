package dev.backstage.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.redis.RedisProvider;
import dev.backstage.runtime.redis.RedisSettings;
import io.lettuce.core.Consumer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.XReadArgs.StreamOffset;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.ReadOffset;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.stream.StreamMessageListenerContainer;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

/**
 * Redis streams: the Worker against a raw lettuce loop doing the same work (XREADGROUP with the Worker's
 * COUNT and in-flight allowance, the payload decoded with Jackson into {@link Job}, handed to the same number
 * of handler threads, XACK batched by 100 as the Worker's ack batcher does), the bare ceiling (XREADGROUP +
 * one XACK per batch, no decode, no hand-off), and Spring Data Redis's {@code StreamMessageListenerContainer}
 * (one subscription per handler thread in the same group, batch size = allowance / concurrency, manual ack).
 * Run: {@code bin/bench redis [jobs] [rounds] [warmups] [concurrency] [prefetch]}.
 *
 * <p>Kept as one class: every side is set up and timed the same way on the same preloaded stream, and having them side
 * by side is what shows they do the same work.
 */
public final class RedisBenchmark {
    static final String URL = System.getenv().getOrDefault("BACKSTAGE_REDIS_URL", "redis://127.0.0.1:6379");
    static final String GROUP = "backstage-workers";
    static final ObjectMapper JSON = new ObjectMapper();
    static int concurrency;
    static int prefetch;

    public static void main(String[] args) throws Exception {
        int jobs = arg(args, 0, 100_000);
        int rounds = arg(args, 1, 5);
        int warmups = arg(args, 2, 3);
        concurrency = arg(args, 3, 16);
        prefetch = arg(args, 4, 256);
        RedisClient client = RedisClient.create(URL);
        try (StatefulRedisConnection<String, String> admin = client.connect()) {
            List<Side> sides = List.of(
                    side("Worker", j -> worker(admin, j)),
                    side("raw lettuce, same work", j -> raw(admin, j, true)),
                    side("bare lettuce ceiling (no decode/hand-off)", j -> raw(admin, j, false)),
                    side("Spring StreamMessageListenerContainer", j -> spring(admin, j)));
            Rounds.run(
                    String.format("Redis streams, concurrency %d, in-flight allowance %d", concurrency, prefetch),
                    sides,
                    jobs,
                    warmups,
                    rounds);
            String prefix = "bench15-latency-" + System.nanoTime();
            Latency.measure(
                    "Redis",
                    Worker.builder()
                            .provider(
                                    RedisProvider.connect(RedisSettings.of(URL).withPrefix(prefix)))
                            .queues("default")
                            .concurrency(concurrency)
                            .prefetch(prefetch)
                            .build(),
                    Integer.getInteger("bench.latencyJobs", 20_000),
                    1_000);
            admin.sync().del(prefix + ":default");
        } finally {
            client.shutdown();
        }
        System.exit(0);
    }

    static int arg(String[] args, int i, int fallback) {
        return args.length > i ? Integer.parseInt(args[i]) : fallback;
    }

    interface Run {
        TimedWindow.Measured run(int jobs) throws Exception;
    }

    static Side side(String name, Run run) {
        return new Side() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public TimedWindow.Measured run(int jobs) throws Exception {
                return run.run(jobs);
            }
        };
    }

    /** The stream as the Worker's producer writes it (taskName, payload as JSON text, enqueuedAt). */
    static String preload(StatefulRedisConnection<String, String> c, String side, int jobs) throws Exception {
        String prefix = "bench15-" + side + "-" + System.nanoTime();
        String stream = prefix + ":default";
        c.sync().xgroupCreate(StreamOffset.from(stream, "0"), GROUP, XGroupCreateArgs.Builder.mkstream());
        RedisAsyncCommands<String, String> async = c.async();
        List<RedisFuture<String>> futures = new ArrayList<>(jobs);
        for (int i = 0; i < jobs; i++) {
            futures.add(async.xadd(
                    stream,
                    "taskName",
                    "noop",
                    "payload",
                    "{\"n\":" + i + "}",
                    "enqueuedAt",
                    Long.toString(System.currentTimeMillis())));
        }
        for (RedisFuture<String> f : futures) {
            f.get(60, TimeUnit.SECONDS);
        }
        return prefix;
    }

    static TimedWindow.Measured worker(StatefulRedisConnection<String, String> admin, int jobs) throws Exception {
        String prefix = preload(admin, "worker", jobs);
        TimedWindow window = new TimedWindow(jobs);
        Worker worker = Worker.builder()
                .provider(RedisProvider.connect(RedisSettings.of(URL).withPrefix(prefix)))
                .queues("default")
                .concurrency(concurrency)
                .prefetch(prefetch)
                .build();
        worker.register("noop", Job.class, (ctx, job) -> {
            window.handled();
            return Next.done();
        });
        worker.start();
        try {
            return window.await("Worker");
        } finally {
            worker.close();
            admin.sync().del(prefix + ":default");
        }
    }

    /**
     * A hand-written consumer: one reader thread (XREADGROUP, COUNT up to the free allowance, BLOCK 1 s), each
     * entry's payload decoded into {@link Job} and handed to a handler thread, acks queued and sent as one XACK
     * per 100 (or every 50 ms), the allowance given back after the ack is queued. With {@code work} false it is
     * the bare ceiling: read, XACK the batch, count.
     */
    static TimedWindow.Measured raw(StatefulRedisConnection<String, String> admin, int jobs, boolean work)
            throws Exception {
        String prefix = preload(admin, work ? "raw" : "bare", jobs);
        String stream = prefix + ":default";
        TimedWindow window = new TimedWindow(jobs);
        RedisClient client = RedisClient.create(URL);
        StatefulRedisConnection<String, String> reader = client.connect();
        StatefulRedisConnection<String, String> acker = client.connect();
        Handoff handoff = new Handoff("raw", concurrency, prefetch);
        ConcurrentLinkedQueue<String> acks = new ConcurrentLinkedQueue<>();
        AtomicInteger waiting = new AtomicInteger();
        ScheduledExecutorService flusher = Executors.newSingleThreadScheduledExecutor();
        Runnable flush = () -> {
            List<String> ids = new ArrayList<>(100);
            String id;
            while (ids.size() < 100 && (id = acks.poll()) != null) {
                ids.add(id);
            }
            if (!ids.isEmpty()) {
                waiting.addAndGet(-ids.size());
                acker.async().xack(stream, GROUP, ids.toArray(String[]::new));
            }
        };
        flusher.scheduleWithFixedDelay(flush, 50, 50, TimeUnit.MILLISECONDS);
        Consumer<String> me = Consumer.from(GROUP, "raw");
        Thread thread = new Thread(
                () -> {
                    int seen = 0;
                    try {
                        while (seen < jobs) {
                            int free = work ? handoff.room.drainPermits() : prefetch;
                            if (free == 0) {
                                handoff.room.acquire();
                                free = 1 + handoff.room.drainPermits();
                            }
                            List<StreamMessage<String, String>> batch = reader.sync()
                                    .xreadgroup(
                                            me,
                                            XReadArgs.Builder.count(free).block(Duration.ofSeconds(1)),
                                            StreamOffset.lastConsumed(stream));
                            seen += batch.size();
                            if (!work) {
                                if (!batch.isEmpty()) {
                                    acker.async()
                                            .xack(
                                                    stream,
                                                    GROUP,
                                                    batch.stream()
                                                            .map(StreamMessage::getId)
                                                            .toArray(String[]::new));
                                    batch.forEach(m -> window.handled());
                                }
                                continue;
                            }
                            handoff.room.release(free - batch.size());
                            for (StreamMessage<String, String> m : batch) {
                                if (!"noop".equals(m.getBody().get("taskName"))) {
                                    throw new IllegalStateException("unexpected task " + m.getBody());
                                }
                                Job job = JSON.readValue(m.getBody().get("payload"), Job.class);
                                String id = m.getId();
                                handoff.pool.execute(() -> {
                                    if (job.n() >= 0) {
                                        window.handled();
                                    }
                                    acks.add(id);
                                    if (waiting.incrementAndGet() >= 100) {
                                        flush.run();
                                    }
                                    handoff.room.release();
                                });
                            }
                        }
                    } catch (Exception e) {
                        if (!(e instanceof InterruptedException)) {
                            e.printStackTrace();
                        }
                    }
                },
                "raw-reader");
        thread.start();
        try {
            return window.await(work ? "raw" : "bare");
        } finally {
            thread.join(5_000);
            flusher.shutdown();
            flusher.awaitTermination(5, TimeUnit.SECONDS);
            flush.run();
            handoff.close();
            reader.close();
            acker.close();
            client.shutdown();
            admin.sync().del(stream);
        }
    }

    /**
     * Spring Data Redis as its reference documentation sets it up: a {@code StreamMessageListenerContainer} with
     * {@code receive} (manual acknowledgement via {@code StreamOperations.acknowledge}), one subscription per
     * handler thread in the consumer group (a subscription calls its listener on its own polling thread), batch
     * size per subscription = allowance / concurrency so the unacked total equals the Worker's prefetch.
     */
    static TimedWindow.Measured spring(StatefulRedisConnection<String, String> admin, int jobs) throws Exception {
        String prefix = preload(admin, "spring", jobs);
        String stream = prefix + ":default";
        TimedWindow window = new TimedWindow(jobs);
        RedisURI uri = RedisURI.create(URL);
        LettuceConnectionFactory factory =
                new LettuceConnectionFactory(new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
        factory.afterPropertiesSet();
        factory.start();
        StringRedisTemplate template = new StringRedisTemplate(factory);
        ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
        executor.setCorePoolSize(concurrency);
        executor.setThreadNamePrefix("spring-redis-");
        executor.initialize();
        var options = StreamMessageListenerContainer.StreamMessageListenerContainerOptions.builder()
                .batchSize(Math.max(1, prefetch / concurrency))
                .pollTimeout(Duration.ofSeconds(1))
                .executor(executor)
                .build();
        StreamMessageListenerContainer<String, MapRecord<String, String, String>> container =
                StreamMessageListenerContainer.create(factory, options);
        for (int i = 0; i < concurrency; i++) {
            container.receive(
                    org.springframework.data.redis.connection.stream.Consumer.from(GROUP, "spring-" + i),
                    org.springframework.data.redis.connection.stream.StreamOffset.create(
                            stream, ReadOffset.lastConsumed()),
                    message -> {
                        try {
                            if (!"noop".equals(message.getValue().get("taskName"))) {
                                throw new IllegalStateException("unexpected task " + message.getValue());
                            }
                            Job job = JSON.readValue(message.getValue().get("payload"), Job.class);
                            if (job.n() >= 0) {
                                window.handled();
                            }
                            template.opsForStream().acknowledge(GROUP, message);
                        } catch (java.io.IOException e) {
                            throw new IllegalStateException(e);
                        }
                    });
        }
        container.start();
        try {
            return window.await("Spring");
        } finally {
            container.stop();
            executor.shutdown();
            factory.destroy();
            admin.sync().del(stream);
        }
    }

    private RedisBenchmark() {}
}
