package dev.backstage.runtime.kafka;

import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.redis.RedisDelays;
import dev.backstage.runtime.redis.RedisSettings;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * A worker in its own JVM, for the crash test: it runs jobs, prints {@code DONE <n>} for each finished one,
 * never finishes job {@link #HANG}, and holds jobs from {@link #HOLD_FROM} on until it reads {@code GO} on
 * stdin. The test kills it with SIGKILL, so nothing gets a chance to commit on the way out.
 *
 * <p>Arguments: bootstrap servers, Kafka prefix, group, Redis URL, Redis prefix.
 */
public final class KafkaCrashWorkerMain {
    static final int HANG = 3;
    static final int HOLD_FROM = 10;

    record Job(int n) {}

    private KafkaCrashWorkerMain() {}

    public static void main(String[] args) throws Exception {
        KafkaSettings settings = KafkaSettings.of(args[0])
                .withPrefix(args[1])
                .withGroup(args[2])
                .withCommitInterval(Duration.ofMillis(500))
                // So the survivor's group evicts this process soon after the kill (the broker minimum is 6 s).
                .withClientProperties(Map.of("session.timeout.ms", "6000", "heartbeat.interval.ms", "1000"));
        Worker worker = Worker.builder()
                .provider(KafkaProvider.connect(settings))
                .delays(RedisDelays.connect(RedisSettings.of(args[3]).withPrefix(args[4])))
                .queues("jobs")
                .concurrency(16)
                .build();
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        worker.register("work", Job.class, (ctx, job) -> {
            if (job.n() == HANG) {
                never.await();
            }
            if (job.n() >= HOLD_FROM) {
                go.await();
            }
            System.out.println("DONE " + job.n());
            System.out.flush();
            return Next.done();
        });
        worker.start();
        System.out.println("STARTED");
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.equals("GO")) {
                go.countDown();
            }
        }
        never.await(); // stdin closed: keep running until killed
    }
}
