package dev.backstage.runtime.rabbitmq;

import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.spi.ProviderSettings;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * A worker JVM whose task {@code crash} halts the JVM (no ack, no close, as an out-of-memory kill or a segfault
 * would) every time it runs: the poison message of {@link RabbitMqQuorumQueuesTest}. Prints {@code STARTED} once
 * consuming and {@code CRASH} just before it halts.
 *
 * <p>Arguments: url, prefix, consumer id, then provider options as {@code key=value}.
 */
public final class PoisonWorkerMain {
    record Job(int n) {}

    private PoisonWorkerMain() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>();
        for (int i = 3; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            options.put(kv[0], kv[1]);
        }
        Worker worker = Worker.builder()
                .provider(RabbitMqProvider.connect(new ProviderSettings("rabbitmq", args[0], args[1], null, options)))
                .queues("default")
                .consumerId(args[2])
                .concurrency(1)
                .shutdownGrace(Duration.ofSeconds(1))
                .build();
        worker.register("crash", Job.class, (ctx, job) -> {
            System.out.println("CRASH " + job.n());
            System.out.flush();
            Runtime.getRuntime().halt(3);
            return Next.done();
        });
        worker.start();
        System.out.println("STARTED");
        new CountDownLatch(1).await(); // until halted or killed
    }
}
