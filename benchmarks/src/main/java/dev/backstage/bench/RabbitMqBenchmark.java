package dev.backstage.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.rabbitmq.RabbitMqProvider;
import dev.backstage.runtime.spi.ProviderSettings;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.DirectMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.api.ChannelAwareMessageListener;

/**
 * RabbitMQ: the Worker against a raw amqp-client consumer doing the same work (one channel, basic.qos =
 * the Worker's prefetch, each body decoded with Jackson into {@link JobEnvelope}, handed to the same number of
 * handler threads, basic.ack per message from the handler thread), the bare ceiling (ack in the delivery
 * callback, no decode, no hand-off), and Spring AMQP's {@code DirectMessageListenerContainer} and
 * {@code SimpleMessageListenerContainer} (manual acknowledgement, consumers = concurrency, prefetch per consumer
 * = allowance / concurrency, so the unacked total is the Worker's). Run:
 * {@code bin/bench rabbitmq [jobs] [rounds] [warmups] [concurrency] [prefetch]}.
 */
public final class RabbitMqBenchmark {
    static final String URL =
            System.getenv().getOrDefault("BACKSTAGE_RABBITMQ_URL", "amqp://guest:guest@127.0.0.1:5672");
    static final ObjectMapper JSON = new ObjectMapper();
    static int concurrency;
    static int prefetch;

    public static void main(String[] args) throws Exception {
        int jobs = RedisBenchmark.arg(args, 0, 50_000);
        int rounds = RedisBenchmark.arg(args, 1, 5);
        int warmups = RedisBenchmark.arg(args, 2, 3);
        concurrency = RedisBenchmark.arg(args, 3, 16);
        prefetch = RedisBenchmark.arg(args, 4, 256);
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(URL);
        // The broker shares these cores: its CPU per job is printed beside ours (its Erlang node, if local).
        ProcessHandle.allProcesses()
                .filter(p -> p.info().command().orElse("").endsWith("beam.smp"))
                .findFirst()
                .ifPresent(p -> TimedWindow.brokerPid = p.pid());
        System.out.println(
                TimedWindow.brokerPid == 0
                        ? "broker process: not found on this machine"
                        : "broker process: beam.smp pid " + TimedWindow.brokerPid);
        try (Connection admin = factory.newConnection("bench15-admin")) {
            List<Side> sides = List.of(
                    RedisBenchmark.side("Worker", j -> worker(admin, j)),
                    RedisBenchmark.side("raw amqp-client, same work", j -> raw(factory, admin, j, true)),
                    RedisBenchmark.side(
                            "bare amqp-client ceiling (no decode/hand-off)", j -> raw(factory, admin, j, false)),
                    RedisBenchmark.side("bare ceiling, multiple acks every 32", j -> bareMultiple(factory, admin, j)),
                    RedisBenchmark.side("Spring DirectMessageListenerContainer", j -> spring(admin, j, true)),
                    RedisBenchmark.side("Spring SimpleMessageListenerContainer", j -> spring(admin, j, false)));
            Rounds.run(
                    String.format("RabbitMQ, concurrency %d, in-flight allowance (unacked) %d", concurrency, prefetch),
                    sides,
                    jobs,
                    warmups,
                    rounds);
            String prefix = "bench15-latency-" + System.nanoTime();
            Latency.measure(
                    "RabbitMQ",
                    Worker.builder()
                            .provider(RabbitMqProvider.connect(settings(prefix)))
                            .queues("default")
                            .concurrency(concurrency)
                            .prefetch(prefetch)
                            .build(),
                    Integer.getInteger("bench.latencyJobs", 20_000),
                    1_000);
            delete(admin, prefix);
        }
        System.exit(0);
    }

    static ProviderSettings settings(String prefix) {
        return new ProviderSettings("rabbitmq", URL, prefix, null, Map.of("delayedExchange", "fallback"));
    }

    /** Fills {@code prefix.default} with job bodies as the provider writes them (persistent, confirmed). */
    static String preload(Connection connection, String side, int jobs) throws Exception {
        String prefix = "bench15-" + side + "-" + System.nanoTime();
        String queue = prefix + ".default";
        try (Channel ch = connection.createChannel()) {
            ch.queueDeclare(queue, true, false, false, null);
            ch.queueDeclare(queue + ".dead-letter", true, false, false, null);
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
            ch.waitForConfirmsOrDie(120_000);
        }
        return prefix;
    }

    static void delete(Connection connection, String prefix) throws Exception {
        try (Channel ch = connection.createChannel()) {
            ch.queueDelete(prefix + ".default");
            ch.queueDelete(prefix + ".default.dead-letter");
            for (int level = 0; level < 25; level++) {
                ch.queueDelete(String.format("%s.delay-level.%02d", prefix, level));
                ch.exchangeDelete(String.format("%s.delay-level.%02d", prefix, level));
            }
            ch.exchangeDelete(prefix + ".delay-deliver");
        }
    }

    static TimedWindow.Measured worker(Connection admin, int jobs) throws Exception {
        String prefix = preload(admin, "worker", jobs);
        TimedWindow window = new TimedWindow(jobs);
        Worker worker = Worker.builder()
                .provider(RabbitMqProvider.connect(settings(prefix)))
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
            delete(admin, prefix);
        }
    }

    static Job decode(byte[] body) throws IOException {
        JobEnvelope job = JSON.readValue(body, JobEnvelope.class);
        if (!"noop".equals(job.taskName())) {
            throw new IllegalStateException("unexpected task " + job.taskName());
        }
        return job.payload();
    }

    static TimedWindow.Measured raw(ConnectionFactory factory, Connection admin, int jobs, boolean work)
            throws Exception {
        String prefix = preload(admin, work ? "raw" : "bare", jobs);
        TimedWindow window = new TimedWindow(jobs);
        Handoff handoff = new Handoff("raw", concurrency, prefetch);
        try (Connection connection = factory.newConnection("bench15-raw")) {
            Channel ch = connection.createChannel();
            ch.basicQos(prefetch, true);
            ch.basicConsume(prefix + ".default", false, new DefaultConsumer(ch) {
                @Override
                public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body)
                        throws IOException {
                    long deliveryTag = envelope.getDeliveryTag();
                    if (!work) {
                        ch.basicAck(deliveryTag, false);
                        window.handled();
                        return;
                    }
                    Job job = decode(body);
                    handoff.pool.execute(() -> {
                        if (job.n() >= 0) {
                            window.handled();
                        }
                        try {
                            ch.basicAck(deliveryTag, false);
                        } catch (IOException e) {
                            throw new IllegalStateException(e);
                        }
                    });
                }
            });
            TimedWindow.Measured measured = window.await(work ? "raw" : "bare");
            // The last handlers may still be acking: let them finish before the connection closes.
            handoff.pool.shutdown();
            handoff.pool.awaitTermination(30, java.util.concurrent.TimeUnit.SECONDS);
            return measured;
        } finally {
            handoff.close();
            delete(admin, prefix);
        }
    }

    /**
     * The bare ceiling with the acks coalesced: {@code basic.ack(tag, multiple=true)} every 32nd delivery and at the
     * last one, from the delivery callback (tags on the fresh channel run 1..jobs, in order) — what the broker does
     * when the consumer side costs nothing and sends a 32nd of the ack frames.
     */
    static TimedWindow.Measured bareMultiple(ConnectionFactory factory, Connection admin, int jobs) throws Exception {
        String prefix = preload(admin, "bare-multiple", jobs);
        TimedWindow window = new TimedWindow(jobs);
        try (Connection connection = factory.newConnection("bench15-bare-multiple")) {
            Channel ch = connection.createChannel();
            ch.basicQos(prefetch, true);
            ch.basicConsume(prefix + ".default", false, new DefaultConsumer(ch) {
                @Override
                public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body)
                        throws IOException {
                    long deliveryTag = envelope.getDeliveryTag();
                    if (deliveryTag % 32 == 0 || deliveryTag == jobs) {
                        ch.basicAck(deliveryTag, true);
                    }
                    window.handled();
                }
            });
            return window.await("bare, multiple acks");
        } finally {
            delete(admin, prefix);
        }
    }

    /**
     * Spring AMQP with manual acknowledgement: a {@code ChannelAwareMessageListener} decodes the body and calls
     * {@code basicAck}; {@code DirectMessageListenerContainer} with consumersPerQueue = concurrency (listeners
     * run on the connection's consumer executor, sized to concurrency), {@code SimpleMessageListenerContainer}
     * with concurrentConsumers = concurrency (a thread each); prefetch per consumer = allowance / concurrency.
     */
    static TimedWindow.Measured spring(Connection admin, int jobs, boolean direct) throws Exception {
        String prefix = preload(admin, direct ? "dmlc" : "smlc", jobs);
        TimedWindow window = new TimedWindow(jobs);
        URI uri = URI.create(URL);
        CachingConnectionFactory factory = new CachingConnectionFactory(uri);
        ExecutorService consumerThreads = Executors.newFixedThreadPool(concurrency);
        if (direct) {
            factory.setExecutor(consumerThreads);
        }
        AbstractMessageListenerContainer container;
        if (direct) {
            DirectMessageListenerContainer dmlc = new DirectMessageListenerContainer(factory);
            dmlc.setConsumersPerQueue(concurrency);
            container = dmlc;
        } else {
            SimpleMessageListenerContainer smlc = new SimpleMessageListenerContainer(factory);
            smlc.setConcurrentConsumers(concurrency);
            container = smlc;
        }
        container.setQueueNames(prefix + ".default");
        container.setPrefetchCount(Math.max(1, prefetch / concurrency));
        container.setAcknowledgeMode(AcknowledgeMode.MANUAL);
        container.setMessageListener((ChannelAwareMessageListener) (message, channel) -> {
            Job job = decode(message.getBody());
            if (job.n() >= 0) {
                window.handled();
            }
            channel.basicAck(message.getMessageProperties().getDeliveryTag(), false);
        });
        container.afterPropertiesSet();
        container.start();
        try {
            return window.await(direct ? "Spring DMLC" : "Spring SMLC");
        } finally {
            container.stop();
            container.destroy();
            factory.destroy();
            consumerThreads.shutdownNow();
            delete(admin, prefix);
        }
    }

    private RabbitMqBenchmark() {}
}
