package dev.backstage.bench;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Dead-letter redrive throughput on Redis and RabbitMQ, each beside a baseline that moves the same dead letters with
 * the broker's client alone: {@code jobs} dead letters are written straight to the broker (not timed), then one side
 * moves them all back onto the queue (timed). Warm-up rounds first, sides rotated every round, medians with their
 * spread and the ratio to the baseline printed by {@link Rounds}.
 *
 * <ul>
 *   <li>Redis baseline: {@code XRANGE} of 100 entries, then per entry a pipelined {@code XADD} to the queue and
 *       {@code XDEL} from the dead-letter stream (the provider does the same in one atomic script per entry).
 *   <li>RabbitMQ baseline: {@code basic.get} of up to 100 messages, each published to the queue without waiting,
 *       then the batch's confirms awaited and each dead letter acked (the provider's batching, without decoding the
 *       body or re-encoding the job).
 * </ul>
 *
 * Run: {@code bin/bench dev.backstage.bench.RedriveBenchmark [jobs] [rounds] [warmups]}.
 */
public final class RedriveBenchmark {
    private static final String REDIS = System.getenv().getOrDefault("BACKSTAGE_REDIS_URL", "redis://127.0.0.1:6379");
    private static final String RABBITMQ =
            System.getenv().getOrDefault("BACKSTAGE_RABBITMQ_URL", "amqp://guest:guest@127.0.0.1:5672");
    private static final int BATCH = 100;

    private RedriveBenchmark() {}

    public static void main(String[] args) throws Exception {
        int jobs = RedisBenchmark.arg(args, 0, 3_000);
        int rounds = RedisBenchmark.arg(args, 1, 5);
        int warmups = RedisBenchmark.arg(args, 2, 2);
        RedisClient client = RedisClient.create(REDIS);
        try (StatefulRedisConnection<String, String> redis = client.connect()) {
            Rounds.run(
                    "Redis dead-letter redrive (" + REDIS + ")",
                    List.of(
                            RedisBenchmark.side("Worker's DeadLetterQueue.redrive", j -> redisProvider(redis, j)),
                            RedisBenchmark.side(
                                    "baseline: lettuce XRANGE + pipelined XADD/XDEL", j -> redisRaw(redis, j))),
                    jobs,
                    warmups,
                    rounds);
        } finally {
            client.shutdown();
        }
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(RABBITMQ);
        try (Connection connection = factory.newConnection("bench-redrive")) {
            Rounds.run(
                    "RabbitMQ dead-letter redrive (" + factory.getHost() + ":" + factory.getPort() + ")",
                    List.of(
                            RedisBenchmark.side("Worker's DeadLetterQueue.redrive", j -> rabbitProvider(connection, j)),
                            RedisBenchmark.side(
                                    "baseline: amqp-client get + publish + confirm + ack",
                                    j -> rabbitRaw(connection, j))),
                    jobs,
                    warmups,
                    rounds);
        }
    }

    private static TimedWindow.Measured timed(int jobs, Timed body) throws Exception {
        long cpu = TimedWindow.processCpu();
        long start = System.nanoTime();
        long moved = body.run();
        long nanos = System.nanoTime() - start;
        long cpuNanos = TimedWindow.processCpu() - cpu;
        if (moved != jobs) {
            throw new IllegalStateException("moved " + moved + " of " + jobs + " dead letters");
        }
        return new TimedWindow.Measured(jobs / (nanos / 1e9), cpuNanos / 1000.0 / jobs, Double.NaN);
    }

    private interface Timed {
        long run() throws Exception;
    }

    private static String redisDeadLetters(StatefulRedisConnection<String, String> redis, String prefix, int jobs)
            throws Exception {
        String dlq = prefix + ":default:dead-letter";
        List<RedisFuture<String>> writes = new ArrayList<>(jobs);
        for (int i = 0; i < jobs; i++) {
            writes.add(redis.async()
                    .xadd(
                            dlq,
                            Map.of(
                                    "taskName", "t",
                                    "payload", "{\"n\":" + i + "}",
                                    "enqueuedAt", "1700000000000",
                                    "deliveryCount", "3",
                                    "error", "boom",
                                    "deadLetteredAt", "1700000000001",
                                    "originalId", "1700000000000-" + i)));
        }
        for (RedisFuture<String> write : writes) {
            write.get(30, TimeUnit.SECONDS);
        }
        return dlq;
    }

    private static TimedWindow.Measured redisProvider(StatefulRedisConnection<String, String> redis, int jobs)
            throws Exception {
        String prefix = "bench-redrive-" + UUID.randomUUID().toString().substring(0, 8);
        try (Provider provider = Providers.create(new ProviderSettings("redis", REDIS, prefix, null, null))) {
            redisDeadLetters(redis, prefix, jobs);
            return timed(jobs, () -> provider.deadLetters().redrive("default", jobs));
        } finally {
            redis.sync().del(prefix + ":default:dead-letter", prefix + ":default");
        }
    }

    private static TimedWindow.Measured redisRaw(StatefulRedisConnection<String, String> redis, int jobs)
            throws Exception {
        String prefix = "bench-redrive-" + UUID.randomUUID().toString().substring(0, 8);
        String stream = prefix + ":default";
        try {
            String dlq = redisDeadLetters(redis, prefix, jobs);
            return timed(jobs, () -> {
                long moved = 0;
                while (true) {
                    List<StreamMessage<String, String>> batch =
                            redis.sync().xrange(dlq, Range.create("-", "+"), Limit.from(BATCH));
                    if (batch.isEmpty()) {
                        return moved;
                    }
                    List<RedisFuture<?>> moves = new ArrayList<>(batch.size() * 2);
                    for (StreamMessage<String, String> entry : batch) {
                        moves.add(redis.async().xadd(stream, entry.getBody()));
                        moves.add(redis.async().xdel(dlq, entry.getId()));
                    }
                    for (RedisFuture<?> move : moves) {
                        move.get(30, TimeUnit.SECONDS);
                    }
                    moved += batch.size();
                }
            });
        } finally {
            redis.sync().del(prefix + ":default:dead-letter", stream);
        }
    }

    private static String rabbitDeadLetters(Channel channel, String prefix, int jobs) throws Exception {
        String dlq = prefix + ".default.dead-letter";
        channel.queueDeclare(dlq, true, false, false, null);
        channel.confirmSelect();
        AMQP.BasicProperties persistent =
                new AMQP.BasicProperties.Builder().deliveryMode(2).build();
        for (int i = 0; i < jobs; i++) {
            channel.basicPublish(
                    "",
                    dlq,
                    persistent,
                    ("{\"taskName\":\"t\",\"payload\":{\"n\":" + i + "},\"error\":\"boom\",\"jobId\":\"j" + i + "\"}")
                            .getBytes(StandardCharsets.UTF_8));
        }
        channel.waitForConfirmsOrDie(60_000);
        return dlq;
    }

    private static TimedWindow.Measured rabbitProvider(Connection connection, int jobs) throws Exception {
        String prefix = "bench-redrive-" + UUID.randomUUID().toString().substring(0, 8);
        Channel channel = connection.createChannel();
        try (Provider provider = Providers.create(
                new ProviderSettings("rabbitmq", RABBITMQ, prefix, null, Map.of("delayedExchange", "supplied")))) {
            rabbitDeadLetters(channel, prefix, jobs);
            return timed(jobs, () -> provider.deadLetters().redrive("default", jobs));
        } finally {
            channel.queueDelete(prefix + ".default.dead-letter");
            channel.queueDelete(prefix + ".default");
            channel.close();
        }
    }

    private static TimedWindow.Measured rabbitRaw(Connection connection, int jobs) throws Exception {
        String prefix = "bench-redrive-" + UUID.randomUUID().toString().substring(0, 8);
        String queue = prefix + ".default";
        Channel channel = connection.createChannel();
        try {
            String dlq = rabbitDeadLetters(channel, prefix, jobs);
            channel.queueDeclare(queue, true, false, false, null);
            AMQP.BasicProperties persistent =
                    new AMQP.BasicProperties.Builder().deliveryMode(2).build();
            return timed(jobs, () -> {
                long moved = 0;
                while (true) {
                    List<Long> tags = new ArrayList<>(BATCH);
                    while (tags.size() < BATCH) {
                        GetResponse response = channel.basicGet(dlq, false);
                        if (response == null) {
                            break;
                        }
                        tags.add(response.getEnvelope().getDeliveryTag());
                        channel.basicPublish("", queue, true, persistent, response.getBody());
                    }
                    if (tags.isEmpty()) {
                        return moved;
                    }
                    channel.waitForConfirmsOrDie(60_000);
                    for (long tag : tags) {
                        channel.basicAck(tag, false);
                    }
                    moved += tags.size();
                }
            });
        } finally {
            channel.queueDelete(prefix + ".default.dead-letter");
            channel.queueDelete(queue);
            channel.close();
        }
    }
}
