package dev.backstage.runtime.kafka;

import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.redis.RedisDelays;
import dev.backstage.runtime.redis.RedisSettings;
import dev.backstage.runtime.spi.Backoff;
import dev.backstage.runtime.spi.Subscription;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A topic subscriber in its own JVM, for the topic-retry crash test: it subscribes to topic {@code rides} in
 * group {@code a}, prints {@code RUN <deliveryCount> <messageId>} for every delivery, fails delivery 1 (so a retry
 * copy is produced, due after 3 s) and never finishes a later one (so nothing after the retry is settled here).
 * The test kills it with SIGKILL.
 *
 * <p>Arguments: bootstrap servers, Kafka prefix, jobs group, Redis URL, Redis prefix, consumer id.
 */
public final class KafkaTopicRetryCrashMain {
    static final Duration BACKOFF = Duration.ofSeconds(3);

    record Ride(String id) {}

    private KafkaTopicRetryCrashMain() {}

    public static void main(String[] args) throws Exception {
        KafkaSettings settings = KafkaSettings.of(args[0]).withPrefix(args[1]).withGroup(args[2]);
        Worker worker = Worker.builder()
                .provider(KafkaProvider.connect(settings))
                .delays(RedisDelays.connect(RedisSettings.of(args[3]).withPrefix(args[4])))
                .queues("jobs")
                .consumerId(args[5])
                .backoff(Backoff.fixed(BACKOFF))
                .build();
        CountDownLatch never = new CountDownLatch(1);
        worker.subscribe(Subscription.group("rides", "a"), Ride.class, (ctx, ride) -> {
            System.out.println("RUN " + ctx.deliveryCount() + " " + ctx.messageId());
            System.out.flush();
            if (ctx.deliveryCount() == 1) {
                throw new IllegalStateException("first delivery fails");
            }
            never.await();
        });
        worker.start();
        System.out.println("STARTED");
        System.out.flush();
        never.await(); // until killed
    }
}
