package dev.backstage.runtime.kafka;

import dev.backstage.runtime.core.NamedThreads;
import dev.backstage.runtime.spi.BroadcastCapability;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.OutgoingJob;
import dev.backstage.runtime.spi.TopicConsumer;
import dev.backstage.runtime.spi.TopicDelivery;
import dev.backstage.runtime.spi.TopicSink;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Broadcast on Kafka: topic {@code {p}.broadcast} (one partition: broadcasts are few, and one partition keeps them
 * in send order), value job-shaped as the Redis entry is: {@code {"taskName","payload":<JSON>,"enqueuedAt":ms,
 * "meta":{},"deliveryCount":1}}.
 *
 * <p>Each worker reads it <b>without a consumer group</b>: its consumer assigns itself every partition and seeks
 * to the end when the listener starts, and keeps its position in memory only. Nothing is stored on the broker for
 * a listener — no group, no committed offset — so a dead worker leaves nothing behind, and no group-expiry setting
 * ({@code offsets.retention.minutes}) or cleanup job is needed. (A per-worker group would persist one group per
 * pod start, and a committed position is worth nothing here anyway: a restarted worker starts at the end.)
 *
 * <p>Settlement mechanics (the core decides): ack and drop only move on; a retry hands the same record to this
 * listener again after the back-off, with the next delivery count; a message in flight when the worker stops is
 * not redelivered to it.
 */
final class KafkaBroadcast implements BroadcastCapability {
    private static final Logger log = LoggerFactory.getLogger(KafkaBroadcast.class);
    static final String QUEUE_FIELD = "broadcast";
    private static final Duration POLL = Duration.ofMillis(500);

    private final KafkaClients clients;
    private final JobValueEncoder encoder = new JobValueEncoder();
    private final JobValueDecoder decoder = new JobValueDecoder();

    KafkaBroadcast(KafkaClients clients) {
        this.clients = clients;
    }

    private String topic() {
        return clients.settings().names().broadcastTopic();
    }

    private void ensureTopic() {
        clients.ensureTopic(topic(), 1, clients.settings().replicationFactor());
    }

    @Override
    public String backend() {
        return "kafka";
    }

    /** Returns {@code <kafka topic>:<partition>:<offset>} of the message. */
    @Override
    public String send(String taskName, String payloadJson) {
        ensureTopic();
        byte[] value = encoder.encode(
                new OutgoingJob(QUEUE_FIELD, taskName, payloadJson, System.currentTimeMillis(), JobMeta.NONE, 1, null),
                null);
        try {
            RecordMetadata md =
                    clients.send(topic(), value).get(KafkaClients.ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return md.topic() + ":" + md.partition() + ":" + md.offset();
        } catch (ExecutionException e) {
            throw new KafkaBrokerException("broadcast to " + topic() + " failed", e);
        } catch (TimeoutException e) {
            throw new KafkaBrokerException("broadcast to " + topic() + " was not acknowledged in time", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaBrokerException("interrupted while broadcasting to " + topic(), e);
        }
    }

    @Override
    public TopicConsumer listen(String consumerId, TopicSink sink) {
        ensureTopic();
        KafkaConsumer<byte[], byte[]> consumer =
                clients.newConsumer(null, "backstage-broadcast-" + consumerId, "latest", 100);
        try {
            List<TopicPartition> partitions = partitions(consumer);
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            // Resolve the end offsets now, so every broadcast sent after listen() returns is read.
            partitions.forEach(p -> consumer.position(p, KafkaClients.ADMIN_TIMEOUT));
        } catch (RuntimeException e) {
            consumer.close(Duration.ZERO);
            throw new KafkaBrokerException("cannot listen to broadcasts on " + topic(), e);
        }
        return new Listener(consumer, sink, consumerId).start();
    }

    /** The topic's partitions; right after its creation the metadata may not list them yet, so ask until it does. */
    private List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> consumer) {
        long deadline = System.nanoTime() + KafkaClients.ADMIN_TIMEOUT.toNanos();
        while (true) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic(), KafkaClients.ADMIN_TIMEOUT).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition()))
                    .toList();
            if (!partitions.isEmpty()) {
                return partitions;
            }
            if (System.nanoTime() > deadline) {
                throw new KafkaBrokerException(
                        "topic " + topic() + " lists no partitions after " + KafkaClients.ADMIN_TIMEOUT.toSeconds()
                                + " s",
                        null);
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new KafkaBrokerException("interrupted while waiting for the partitions of " + topic(), e);
            }
        }
    }

    private final class Listener implements TopicConsumer {
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final TopicSink sink;
        private final Thread thread;
        private final ScheduledExecutorService retries;
        private volatile boolean running = true;
        private volatile String failure;

        Listener(KafkaConsumer<byte[], byte[]> consumer, TopicSink sink, String consumerId) {
            this.consumer = consumer;
            this.sink = sink;
            this.thread = new NamedThreads("backstage-kafka-broadcast-" + consumerId, true).newThread(this::run);
            this.retries = Executors.newSingleThreadScheduledExecutor(
                    new NamedThreads("backstage-kafka-broadcast-retry", true));
        }

        Listener start() {
            thread.start();
            return this;
        }

        private void run() {
            try {
                while (running) {
                    try {
                        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL)) {
                            sink.accept(new Message(this, record, decoder.decode(record.value()), 0));
                        }
                    } catch (WakeupException e) {
                        // close() woke the poll
                    } catch (org.apache.kafka.common.KafkaException e) {
                        if (running) {
                            log.warn("reading broadcasts from {} failed: {}; retrying", topic(), e.toString());
                        }
                    }
                }
            } catch (Throwable e) {
                failure = "kafka broadcast listener on " + topic() + " stopped: " + e;
                log.error("the broadcast listener stops", e);
                throw e;
            } finally {
                consumer.close(Duration.ZERO); // nothing to commit: the position lives in memory only
            }
        }

        void retryLater(Message message, Duration delay) {
            retries.schedule(
                    () -> sink.accept(new Message(this, message.record, message.decoded, message.redeliveries + 1)),
                    Math.max(0, delay.toMillis()),
                    TimeUnit.MILLISECONDS);
        }

        @Override
        public Optional<String> failure() {
            return Optional.ofNullable(failure);
        }

        @Override
        public void close() {
            running = false;
            retries.shutdownNow();
            consumer.wakeup();
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static final class Message implements TopicDelivery {
        private final Listener listener;
        private final ConsumerRecord<byte[], byte[]> record;
        private final JobValueDecoder.Decoded decoded;
        private final int redeliveries;

        Message(
                Listener listener,
                ConsumerRecord<byte[], byte[]> record,
                JobValueDecoder.Decoded decoded,
                int redeliveries) {
            this.listener = listener;
            this.record = record;
            this.decoded = decoded;
            this.redeliveries = redeliveries;
        }

        private Optional<JobValue> job() {
            return decoded instanceof JobValueDecoder.Valid valid ? Optional.of(valid.job()) : Optional.empty();
        }

        @Override
        public String topic() {
            return job().map(JobValue::taskName).orElse(null);
        }

        @Override
        public String messageId() {
            return record.topic() + ":" + record.partition() + ":" + record.offset();
        }

        @Override
        public String payloadJson() {
            return job().map(j -> j.payloadJson() == null ? "null" : j.payloadJson())
                    .orElse(null);
        }

        @Override
        public long publishedAtMs() {
            return job().map(JobValue::enqueuedAtMs).orElse(record.timestamp());
        }

        @Override
        public int deliveryCount() {
            return job().map(JobValue::deliveryCount).orElse(1) + redeliveries;
        }

        @Override
        public Optional<String> malformedReason() {
            return decoded instanceof JobValueDecoder.Malformed malformed
                    ? Optional.of(malformed.reason())
                    : Optional.empty();
        }

        @Override
        public CompletionStage<Void> ack() {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<Void> retry(Duration delay, String error) {
            listener.retryLater(this, delay);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<Void> drop(String reason) {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void abandon() {
            // The position lives in memory only: a message abandoned at shutdown is not read again by this worker.
        }
    }
}
