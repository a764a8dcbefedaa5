package dev.backstage.bench;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Address;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.rabbitmq.RabbitMqProvider;
import dev.backstage.runtime.spi.ProviderSettings;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What replication costs: the same Worker, the same work (drain preloaded no-op jobs; then enqueue → handler
 * latency at a steady rate), on one node with classic queues against the 3-node cluster of {@code bin/lib.sh
 * ensure_rabbitmq_cluster} with quorum queues (the client knows all three nodes). Prints jobs/s per round and the
 * medians of both sides, then p50/p99 of both. Run: {@code bin/bench rabbitmq-cluster [jobs] [rounds] [warmups]
 * [concurrency] [prefetch]}.
 */
public final class RabbitMqClusterBenchmark {
    static final String SINGLE = RabbitMqBenchmark.URL;
    static final String CLUSTER = "amqp://guest:guest@127.0.0.1:5681";
    static final String CLUSTER_ADDRESSES = "127.0.0.1:5681,127.0.0.1:5682,127.0.0.1:5683";
    static int concurrency;
    static int prefetch;

    private RabbitMqClusterBenchmark() {}

    public static void main(String[] args) throws Exception {
        int jobs = RedisBenchmark.arg(args, 0, 20_000);
        int rounds = RedisBenchmark.arg(args, 1, 3);
        int warmups = RedisBenchmark.arg(args, 2, 1);
        concurrency = RedisBenchmark.arg(args, 3, 16);
        prefetch = RedisBenchmark.arg(args, 4, 256);
        ConnectionFactory single = new ConnectionFactory();
        single.setUri(SINGLE);
        ConnectionFactory cluster = new ConnectionFactory();
        cluster.setUri(CLUSTER);
        try (Connection singleAdmin = single.newConnection("bench-cluster-admin");
                Connection clusterAdmin =
                        cluster.newConnection(Address.parseAddresses(CLUSTER_ADDRESSES), "bench-cluster-admin")) {
            List<Side> sides = List.of(
                    RedisBenchmark.side("Worker, one node, classic queue", j -> drain(singleAdmin, false, j)),
                    RedisBenchmark.side("Worker, 3-node cluster, quorum queue", j -> drain(clusterAdmin, true, j)));
            Rounds.run(
                    String.format(
                            "RabbitMQ one node classic vs 3-node quorum, concurrency %d, prefetch %d",
                            concurrency, prefetch),
                    sides,
                    jobs,
                    warmups,
                    rounds);
            String singlePrefix = "bench-lat-single-" + System.nanoTime();
            String clusterPrefix = "bench-lat-quorum-" + System.nanoTime();
            Latency.measure(
                    "RabbitMQ one node classic vs 3-node quorum",
                    List.of(
                            Latency.worker("Worker, one node, classic", worker(singlePrefix, false)),
                            Latency.worker("Worker, 3-node cluster, quorum", worker(clusterPrefix, true))),
                    Integer.getInteger("bench.latencyJobs", 10_000),
                    500);
            RabbitMqBenchmark.delete(singleAdmin, singlePrefix);
            RabbitMqBenchmark.delete(clusterAdmin, clusterPrefix);
        }
        System.exit(0);
    }

    static ProviderSettings settings(String prefix, boolean quorum) {
        Map<String, String> options = new HashMap<>(Map.of("delayedExchange", "fallback"));
        if (quorum) {
            options.put("queueType", "quorum");
            options.put("addresses", CLUSTER_ADDRESSES);
        }
        return new ProviderSettings("rabbitmq", quorum ? CLUSTER : SINGLE, prefix, null, options);
    }

    static Worker worker(String prefix, boolean quorum) {
        return Worker.builder()
                .provider(RabbitMqProvider.connect(settings(prefix, quorum)))
                .queues("default")
                .concurrency(concurrency)
                .prefetch(prefetch)
                .build();
    }

    /** Preloads {@code jobs} confirmed, persistent jobs into a queue of the side's type and times the Worker draining them. */
    static TimedWindow.Measured drain(Connection admin, boolean quorum, int jobs) throws Exception {
        String prefix = "bench-cluster-" + (quorum ? "quorum-" : "classic-") + System.nanoTime();
        String queue = prefix + ".default";
        try (Channel ch = admin.createChannel()) {
            Map<String, Object> type = quorum ? Map.of("x-queue-type", "quorum") : null;
            ch.queueDeclare(queue + ".dead-letter", true, false, false, type);
            Map<String, Object> work = quorum
                    ? Map.of(
                            "x-queue-type",
                            "quorum",
                            "x-delivery-limit",
                            20,
                            "x-dead-letter-exchange",
                            "",
                            "x-dead-letter-routing-key",
                            queue + ".dead-letter",
                            "x-dead-letter-strategy",
                            "at-least-once",
                            "x-overflow",
                            "reject-publish")
                    : null;
            ch.queueDeclare(queue, true, false, false, work);
            ch.confirmSelect();
            AMQP.BasicProperties props =
                    new AMQP.BasicProperties.Builder().deliveryMode(2).build();
            for (int i = 0; i < jobs; i++) {
                ch.basicPublish(
                        "",
                        queue,
                        props,
                        ("{\"queue\":\"default\",\"taskName\":\"noop\",\"payload\":{\"n\":" + i
                                        + "},\"enqueuedAt\":" + System.currentTimeMillis()
                                        + ",\"meta\":{},\"deliveryCount\":1,"
                                        + "\"jobId\":\"j" + i + "\"}")
                                .getBytes(StandardCharsets.UTF_8));
            }
            ch.waitForConfirmsOrDie(300_000);
        }
        TimedWindow window = new TimedWindow(jobs);
        Worker worker = worker(prefix, quorum);
        worker.register("noop", Job.class, (ctx, job) -> {
            window.handled();
            return Next.done();
        });
        worker.start();
        try {
            return window.await(quorum ? "quorum" : "classic");
        } finally {
            worker.close();
            RabbitMqBenchmark.delete(admin, prefix);
        }
    }
}
