package dev.backstage.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.kafka.KafkaProvider;
import dev.backstage.runtime.kafka.KafkaSettings;
import dev.backstage.runtime.redis.RedisDelays;
import dev.backstage.runtime.redis.RedisSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.listener.BatchAcknowledgingMessageListener;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ContainerProperties;

/**
 * Kafka: every side reads the same preloaded topic from the start with a fresh group. The Worker against a raw
 * kafka-clients loop doing the same work (one consumer, max.poll.records = the Worker's prefetch, each value
 * decoded with Jackson into {@link JobEnvelope} in one pass, handed to the same number of handler threads within
 * the same in-flight allowance, offsets committed asynchronously every 100 ms up to the last poll whose records
 * are all done, as the Worker commits), the bare ceiling (poll, count, commitAsync per poll) and spring-kafka's
 * {@code ConcurrentMessageListenerContainer} (concurrency = handler threads, so partitions >= concurrency; a batch
 * listener with manual acknowledgement, AckMode.MANUAL, max.poll.records = allowance / concurrency each).
 * The broker runs in its own JVM ({@code bin/bench kafka} starts it and passes {@code -Dbench.kafka.bootstrap}).
 * Run: {@code bin/bench kafka [jobs] [rounds] [warmups] [concurrency] [prefetch] [partitions]}.
 *
 * <p>Kept as one class: every side is set up and timed the same way on the same preloaded topic, and having them side
 * by side is what shows they do the same work.
 */
public final class KafkaBenchmark {
    static final ObjectMapper JSON = new ObjectMapper();
    static String bootstrap;
    static int concurrency;
    static int prefetch;

    public static void main(String[] args) throws Exception {
        int jobs = RedisBenchmark.arg(args, 0, 500_000);
        int rounds = RedisBenchmark.arg(args, 1, 5);
        int warmups = RedisBenchmark.arg(args, 2, 3);
        concurrency = RedisBenchmark.arg(args, 3, 4);
        prefetch = RedisBenchmark.arg(args, 4, 2048);
        int partitions = RedisBenchmark.arg(args, 5, Math.max(4, concurrency));
        bootstrap = System.getProperty("bench.kafka.bootstrap");
        if (bootstrap == null) {
            throw new IllegalArgumentException(
                    "set -Dbench.kafka.bootstrap=host:port (bin/bench kafka starts a broker)");
        }
        String prefix = "bench15-" + System.nanoTime();
        String topic = prefix + ".jobs";
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        produce(topic, jobs);
        List<Side> sides = List.of(
                RedisBenchmark.side("Worker", j -> worker(prefix, j)),
                RedisBenchmark.side("raw kafka-clients, same work", j -> raw(topic, j, true)),
                RedisBenchmark.side("bare kafka-clients ceiling (no decode/hand-off)", j -> raw(topic, j, false)),
                RedisBenchmark.side("Spring ConcurrentMessageListenerContainer", j -> spring(topic, j)));
        if (rounds > 0) {
            Rounds.run(
                    String.format(
                            "Kafka, %d partitions, concurrency %d, in-flight allowance %d",
                            partitions, concurrency, prefetch),
                    sides,
                    jobs,
                    warmups,
                    rounds);
        }
        String latencyPrefix = "bench15-latency-" + System.nanoTime();
        String rawLatencyTopic = latencyPrefix + ".raw";
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            // One partition, as the Worker's own topic gets with KafkaSettings.of (the development default).
            admin.createTopics(List.of(new NewTopic(rawLatencyTopic, 1, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        // -Dbench.kafka.lingerMs=<n>: both producers with that linger (the Worker's through its client.* option);
        // without it both use the runtime's default, 0.
        String linger = System.getProperty("bench.kafka.lingerMs");
        KafkaSettings latencySettings =
                KafkaSettings.of(bootstrap).withPrefix(latencyPrefix).withGroup("latency");
        if (linger != null) {
            latencySettings = latencySettings.withClientProperties(Map.of("linger.ms", linger));
        }
        Latency.measure(
                "Kafka" + (linger == null ? "" : ", linger.ms " + linger),
                List.of(
                        Latency.worker(
                                "Worker",
                                Worker.builder()
                                        .provider(KafkaProvider.connect(latencySettings))
                                        .delays(delays(latencyPrefix))
                                        .queues("default")
                                        .concurrency(concurrency)
                                        .prefetch(prefetch)
                                        .build()),
                        new RawLatency(rawLatencyTopic, Integer.getInteger("bench.kafka.lingerMs", 0))),
                Integer.getInteger("bench.latencyJobs", 20_000),
                1_000);
        System.exit(0);
    }

    /** Values as the Worker's producer writes them (docs/wire-format.md). */
    static void produce(String topic, int jobs) throws Exception {
        Map<String, Object> config = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.LINGER_MS_CONFIG,
                20,
                ProducerConfig.BATCH_SIZE_CONFIG,
                256 * 1024);
        try (var producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < jobs; i++) {
                producer.send(new ProducerRecord<>(
                        topic,
                        ("{\"taskName\":\"noop\",\"payload\":{\"n\":" + i
                                        + "},\"enqueuedAt\":" + System.currentTimeMillis()
                                        + ",\"meta\":{},\"deliveryCount\":1,\"jobId\":\"job-"
                                        + i + "\"}")
                                .getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
    }

    /** The Worker requires a delays capability with Kafka (retries with a delay); no job here uses it. */
    static RedisDelays delays(String prefix) {
        return RedisDelays.connect(RedisSettings.of(RedisBenchmark.URL).withPrefix(prefix));
    }

    static String group(String side) {
        return "bench15-" + side + "-" + System.nanoTime();
    }

    static TimedWindow.Measured worker(String prefix, int jobs) throws Exception {
        TimedWindow window = new TimedWindow(jobs);
        Worker worker = Worker.builder()
                .provider(KafkaProvider.connect(
                        KafkaSettings.of(bootstrap).withPrefix(prefix).withGroup(group("worker"))))
                .delays(delays(prefix))
                .queues("jobs")
                .concurrency(concurrency)
                .prefetch(prefetch)
                .shutdownGrace(Duration.ofSeconds(10))
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
        }
    }

    static Map<String, Object> consumerConfig(String group, int maxPollRecords) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPollRecords);
        return config;
    }

    static Job decode(byte[] value) throws java.io.IOException {
        JobEnvelope job = JSON.readValue(value, JobEnvelope.class);
        if (!"noop".equals(job.taskName())) {
            throw new IllegalStateException("unexpected task " + job.taskName());
        }
        return job.payload();
    }

    /** The records of one poll: done when all its handlers finished; then its next offsets may be committed. */
    private record PollBatch(AtomicInteger remaining, Map<TopicPartition, OffsetAndMetadata> next) {}

    static TimedWindow.Measured raw(String topic, int jobs, boolean work) throws Exception {
        TimedWindow window = new TimedWindow(jobs);
        Handoff handoff = new Handoff("raw", concurrency, prefetch);
        AtomicBoolean stop = new AtomicBoolean();
        Thread thread = new Thread(
                () -> {
                    try (var consumer = new KafkaConsumer<>(
                            consumerConfig(group(work ? "raw" : "bare"), prefetch),
                            new ByteArrayDeserializer(),
                            new ByteArrayDeserializer())) {
                        consumer.subscribe(List.of(topic));
                        ArrayDeque<PollBatch> batches = new ArrayDeque<>();
                        Map<TopicPartition, OffsetAndMetadata> committable = new HashMap<>();
                        long nextCommit = 0;
                        while (!stop.get()) {
                            ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
                            if (!work) {
                                for (ConsumerRecord<byte[], byte[]> r : records) {
                                    if (r.value().length > 0) {
                                        window.handled();
                                    }
                                }
                                if (!records.isEmpty()) {
                                    consumer.commitAsync();
                                }
                                continue;
                            }
                            if (!records.isEmpty()) {
                                Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
                                for (TopicPartition tp : records.partitions()) {
                                    List<ConsumerRecord<byte[], byte[]>> part = records.records(tp);
                                    next.put(
                                            tp,
                                            new OffsetAndMetadata(
                                                    part.get(part.size() - 1).offset() + 1));
                                }
                                PollBatch batch = new PollBatch(new AtomicInteger(records.count()), next);
                                batches.add(batch);
                                for (ConsumerRecord<byte[], byte[]> r : records) {
                                    Job job = decode(r.value());
                                    handoff.room.acquire();
                                    handoff.pool.execute(() -> {
                                        if (job.n() >= 0) {
                                            window.handled();
                                        }
                                        batch.remaining().decrementAndGet();
                                        handoff.room.release();
                                    });
                                }
                            }
                            while (!batches.isEmpty()
                                    && batches.peek().remaining().get() == 0) {
                                committable.putAll(batches.poll().next());
                            }
                            long now = System.nanoTime();
                            if (!committable.isEmpty() && now - nextCommit >= 0) {
                                consumer.commitAsync(Map.copyOf(committable), null);
                                committable.clear();
                                nextCommit = now + TimeUnit.MILLISECONDS.toNanos(100);
                            }
                        }
                    } catch (Exception e) {
                        if (!(e instanceof InterruptedException)) {
                            e.printStackTrace();
                        }
                    }
                },
                "raw-poll");
        thread.start();
        try {
            return window.await(work ? "raw" : "bare");
        } finally {
            stop.set(true);
            thread.join(10_000);
            handoff.close();
        }
    }

    /**
     * spring-kafka for throughput with manual acknowledgement: a batch listener ({@code
     * BatchAcknowledgingMessageListener}) decoding each record and acknowledging the batch, AckMode.MANUAL (the
     * container commits acknowledged offsets before its next poll), concurrency = handler threads, each consumer's
     * max.poll.records = allowance / concurrency.
     */
    static TimedWindow.Measured spring(String topic, int jobs) throws Exception {
        TimedWindow window = new TimedWindow(jobs);
        var factory = new DefaultKafkaConsumerFactory<>(
                consumerConfig(group("spring"), Math.max(1, prefetch / concurrency)),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
        ContainerProperties props = new ContainerProperties(topic);
        props.setAckMode(ContainerProperties.AckMode.MANUAL);
        props.setMessageListener((BatchAcknowledgingMessageListener<byte[], byte[]>) (records, ack) -> {
            try {
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    if (decode(r.value()).n() >= 0) {
                        window.handled();
                    }
                }
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
            ack.acknowledge();
        });
        ConcurrentMessageListenerContainer<byte[], byte[]> container =
                new ConcurrentMessageListenerContainer<>(factory, props);
        container.setConcurrency(concurrency);
        container.start();
        try {
            return window.await("Spring");
        } finally {
            container.stop();
        }
    }

    /**
     * The latency baseline doing the Worker's work by hand: the Worker's producer settings (acks=all, idempotence,
     * the same linger.ms, 0 unless -Dbench.kafka.lingerMs says otherwise) and a send waited on as {@code enqueue} waits; one consumer (poll timeout 100 ms, max.poll.records =
     * allowance), each value decoded with Jackson in one pass, handed to {@code concurrency} handler threads, offsets
     * committed asynchronously at most every 100 ms and only when records came since the last commit (as the Worker
     * commits only what changed).
     */
    static final class RawLatency implements Latency.Target {
        private final String topic;
        private final int lingerMs;
        private final AtomicBoolean stop = new AtomicBoolean();
        private final Handoff handoff = new Handoff("raw-latency", concurrency, prefetch);
        private KafkaProducer<byte[], byte[]> producer;
        private Thread thread;

        RawLatency(String topic, int lingerMs) {
            this.topic = topic;
            this.lingerMs = lingerMs;
        }

        @Override
        public String name() {
            return "raw kafka-clients, same work";
        }

        @Override
        public void start(Latency.Handled handled) throws Exception {
            producer = new KafkaProducer<>(
                    Map.of(
                            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                            bootstrap,
                            ProducerConfig.ACKS_CONFIG,
                            "all",
                            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                            true,
                            ProducerConfig.LINGER_MS_CONFIG,
                            lingerMs),
                    new ByteArraySerializer(),
                    new ByteArraySerializer());
            java.util.concurrent.CountDownLatch assigned = new java.util.concurrent.CountDownLatch(1);
            thread = new Thread(
                    () -> {
                        try (var consumer = new KafkaConsumer<>(
                                consumerConfig(group("raw-latency"), prefetch),
                                new ByteArrayDeserializer(),
                                new ByteArrayDeserializer())) {
                            consumer.subscribe(List.of(topic));
                            long nextCommit = 0;
                            boolean uncommitted = false;
                            while (!stop.get()) {
                                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
                                if (!consumer.assignment().isEmpty()) {
                                    assigned.countDown();
                                }
                                uncommitted |= !records.isEmpty();
                                for (ConsumerRecord<byte[], byte[]> r : records) {
                                    PingEnvelope job = JSON.readValue(r.value(), PingEnvelope.class);
                                    handoff.room.acquire();
                                    handoff.pool.execute(() -> {
                                        handled.handled(job.payload().sentNanos());
                                        handoff.room.release();
                                    });
                                }
                                long now = System.nanoTime();
                                if (uncommitted && now - nextCommit >= 0) {
                                    // As the Worker: a commit only when there is something new to commit.
                                    consumer.commitAsync();
                                    uncommitted = false;
                                    nextCommit = now + TimeUnit.MILLISECONDS.toNanos(100);
                                }
                            }
                        } catch (Exception e) {
                            if (!(e instanceof InterruptedException)) {
                                e.printStackTrace();
                            }
                        }
                    },
                    "raw-latency-poll");
            thread.start();
            if (!assigned.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the raw latency consumer got no partition in 60 s");
            }
        }

        @Override
        public void send(long sentNanos) throws Exception {
            producer.send(new ProducerRecord<>(
                            topic,
                            ("{\"taskName\":\"ping\",\"payload\":{\"sentNanos\":" + sentNanos
                                            + "},\"enqueuedAt\":" + System.currentTimeMillis()
                                            + ",\"meta\":{},\"deliveryCount\":1,\"jobId\":\""
                                            + java.util.UUID.randomUUID() + "\"}")
                                    .getBytes(StandardCharsets.UTF_8)))
                    .get(30, TimeUnit.SECONDS);
        }

        @Override
        public void close() throws Exception {
            stop.set(true);
            thread.join(10_000);
            producer.close();
            handoff.close();
        }
    }

    private KafkaBenchmark() {}
}
