package dev.backstage.bench;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Dead-letter redrive throughput on Redis and RabbitMQ: {@code jobs} dead letters written straight to the broker, then
 * one {@code DeadLetterQueue.redrive} through the provider, timed; each round prints the jobs per second with the
 * machine's load average before and after. Run: {@code bin/bench dev.backstage.bench.RedriveBenchmark [jobs] [rounds]}.
 */
public final class RedriveBenchmark {
    private static final String REDIS = System.getenv().getOrDefault("BACKSTAGE_REDIS_URL", "redis://127.0.0.1:6379");
    private static final String RABBITMQ =
            System.getenv().getOrDefault("BACKSTAGE_RABBITMQ_URL", "amqp://guest:guest@127.0.0.1:5672");

    private RedriveBenchmark() {}

    public static void main(String[] args) throws Exception {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 5_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        for (int round = 1; round <= rounds; round++) {
            redis(jobs, round);
            rabbitmq(jobs, round);
        }
    }

    private static double load() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static void report(String broker, int round, int jobs, long moved, long nanos, double before) {
        System.out.printf(
                "REDRIVE %-8s round %d: %d of %d dead letters in %d ms = %.0f jobs/s (load %.1f -> %.1f)%n",
                broker, round, moved, jobs, TimeUnit.NANOSECONDS.toMillis(nanos), moved * 1e9 / nanos, before, load());
    }

    private static void redis(int jobs, int round) throws Exception {
        String prefix = "bench-redrive-" + UUID.randomUUID().toString().substring(0, 8);
        RedisClient client = RedisClient.create(REDIS);
        try (StatefulRedisConnection<String, String> connection = client.connect();
                Provider provider = Providers.create(new ProviderSettings("redis", REDIS, prefix, null, null))) {
            List<RedisFuture<String>> writes = new ArrayList<>();
            for (int i = 0; i < jobs; i++) {
                writes.add(connection
                        .async()
                        .xadd(
                                prefix + ":default:dead-letter",
                                Map.of(
                                        "taskName",
                                        "t",
                                        "payload",
                                        "{\"n\":" + i + "}",
                                        "enqueuedAt",
                                        "1700000000000",
                                        "deliveryCount",
                                        "3",
                                        "error",
                                        "boom",
                                        "failedAt",
                                        "1700000000001",
                                        "originalId",
                                        "1700000000000-" + i)));
            }
            for (RedisFuture<String> write : writes) {
                write.get(30, TimeUnit.SECONDS);
            }
            double before = load();
            long start = System.nanoTime();
            long moved = provider.deadLetters().redrive("default", jobs);
            report("redis", round, jobs, moved, System.nanoTime() - start, before);
            connection.sync().del(prefix + ":default:dead-letter", prefix + ":default");
        } finally {
            client.shutdown();
        }
    }

    private static void rabbitmq(int jobs, int round) throws Exception {
        String prefix = "bench-redrive-" + UUID.randomUUID().toString().substring(0, 8);
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(RABBITMQ);
        try (Connection connection = factory.newConnection(prefix);
                Provider provider = Providers.create(new ProviderSettings(
                        "rabbitmq", RABBITMQ, prefix, null, Map.of("delayedExchange", "supplied")))) {
            Channel channel = connection.createChannel();
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
                        ("{\"taskName\":\"t\",\"payload\":{\"n\":" + i + "},\"error\":\"boom\",\"jobId\":\"j" + i
                                        + "\"}")
                                .getBytes(StandardCharsets.UTF_8));
            }
            channel.waitForConfirmsOrDie(60_000);
            double before = load();
            long start = System.nanoTime();
            long moved = provider.deadLetters().redrive("default", jobs);
            report("rabbitmq", round, jobs, moved, System.nanoTime() - start, before);
            channel.queueDelete(dlq);
            channel.queueDelete(prefix + ".default");
        }
    }
}
