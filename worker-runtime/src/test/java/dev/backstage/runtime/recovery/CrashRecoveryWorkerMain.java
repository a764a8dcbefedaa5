package dev.backstage.runtime.recovery;

import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.redis.RedisDelays;
import dev.backstage.runtime.redis.RedisSettings;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * A worker in its own JVM, for the crash-recovery tests: the provider's <em>default</em> timings (what a
 * user gets), task {@code work} that takes {@code workMs} and prints {@code START <n>} / {@code DONE <n>}
 * around each job. The test kills it with SIGKILL, so nothing is acked, committed or closed on the way out.
 *
 * <p>Arguments: provider, url, prefix, group, consumer id ({@code -}: the runtime's default, host name and process
 * id), queue, concurrency, work ms[, redis delays url,
 * redis delays prefix] (the delays a Kafka worker needs to start).
 */
public final class CrashRecoveryWorkerMain {
    record Job(int n) {}

    private CrashRecoveryWorkerMain() {}

    public static void main(String[] args) throws Exception {
        ProviderSettings settings = new ProviderSettings(args[0], args[1], args[2], args[3], Map.of());
        String consumerId = args[4];
        String queue = args[5];
        int concurrency = Integer.parseInt(args[6]);
        long workMs = Long.parseLong(args[7]);
        Worker.Builder builder = Worker.builder()
                .provider(Providers.create(settings))
                .queues(queue)
                .concurrency(concurrency)
                .shutdownGrace(Duration.ofSeconds(5));
        if (!consumerId.equals("-")) {
            builder.consumerId(consumerId);
        }
        if (args.length > 9) {
            builder.delays(RedisDelays.connect(RedisSettings.of(args[8]).withPrefix(args[9])));
        }
        Worker worker = builder.build();
        worker.register("work", Job.class, (ctx, job) -> {
            System.out.println("START " + job.n());
            Thread.sleep(workMs); // simulated work: keeps jobs in flight when the test kills this JVM
            System.out.println("DONE " + job.n());
            return Next.done();
        });
        worker.start();
        System.out.println("STARTED");
        new CountDownLatch(1).await(); // until killed
    }
}
