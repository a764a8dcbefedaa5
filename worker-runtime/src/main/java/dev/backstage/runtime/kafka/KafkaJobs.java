package dev.backstage.runtime.kafka;

import dev.backstage.runtime.spi.ConsumerSettings;
import dev.backstage.runtime.spi.DeliverySink;
import dev.backstage.runtime.spi.JobConsumer;
import dev.backstage.runtime.spi.JobsCapability;
import dev.backstage.runtime.spi.OutgoingJob;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Jobs on Kafka (docs/wire-format.md): queue {@code q} is topic {@code {p}.{q}}, read by the worker's consumer
 * group from the earliest offset with manual commits. Kafka keeps no per-message delay, so a retry with a
 * delay needs a delays capability ({@link #retryNeedsDelays()}); the worker refuses to start without one.
 *
 * <p>There is no priority between queues on Kafka: a worker reading several topics reads them side by
 * side, not urgent-first.
 */
final class KafkaJobs implements JobsCapability {
    static final String DELAYS_HINT = "Kafka has no delayed delivery, so retries need a delays backend: supply"
            + " Redis delays, e.g. Worker.builder().delays(RedisDelays.connect(\"redis://host:6379\"))"
            + " (or `delays: {name: redis, urlEnv: ...}` in runtime.yaml)";

    private final KafkaClients clients;
    private final JobValueEncoder encoder = new JobValueEncoder();
    private final JobValueDecoder decoder = new JobValueDecoder();
    private final DeadLetterValueCodec deadLetterValues = new DeadLetterValueCodec();
    private final KafkaNames names;

    KafkaJobs(KafkaClients clients) {
        this.clients = clients;
        this.names = clients.settings().names();
    }

    KafkaClients clients() {
        return clients;
    }

    JobValueEncoder encoder() {
        return encoder;
    }

    JobValueDecoder decoder() {
        return decoder;
    }

    DeadLetterValueCodec deadLetterValues() {
        return deadLetterValues;
    }

    KafkaNames names() {
        return names;
    }

    /**
     * Produces the job and waits until every in-sync replica has it. Keeps the job's delivery count and
     * job id (retry copies and jobs promoted from a delays backend carry them); a new job gets a random
     * job id, which is what this returns: Kafka has no other per-message id a caller could use.
     */
    @Override
    public String publish(OutgoingJob job) {
        String jobId = job.jobId() != null ? job.jobId() : UUID.randomUUID().toString();
        String topic = names.jobTopic(job.queue());
        clients.ensureJobTopic(topic);
        byte[] value = encoder.encode(job, jobId);
        try {
            send(topic, value).get(KafkaClients.ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof KafkaBrokerException k
                    ? k
                    : new KafkaBrokerException("publish to " + topic + " failed", e);
        } catch (TimeoutException e) {
            throw new KafkaBrokerException(
                    "publish to " + topic + " was not acknowledged within " + KafkaClients.ADMIN_TIMEOUT, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaBrokerException("interrupted while publishing to " + topic, e);
        }
        return jobId;
    }

    CompletableFuture<RecordMetadata> send(String topic, byte[] value) {
        return clients.send(topic, value);
    }

    @Override
    public JobConsumer consume(ConsumerSettings settings, DeliverySink sink) {
        List<String> topics = new ArrayList<>();
        Map<String, String> queueOfTopic = new HashMap<>();
        for (String queue : settings.queues()) {
            String topic = names.jobTopic(queue);
            clients.ensureJobTopic(topic);
            topics.add(topic);
            queueOfTopic.put(topic, queue);
        }
        KafkaSettings kafka = clients.settings();
        DeadSiblingMembers.removeDead(
                clients.admin(),
                kafka.consumerGroup(),
                settings.consumerId() + "-jobs",
                hostName(),
                ProcessHandle.current().pid());
        KafkaConsumer<byte[], byte[]> consumer = clients.newConsumer(
                kafka.consumerGroup(),
                settings.consumerId() + "-jobs",
                "earliest",
                Math.max(1, settings.prefetch()),
                true);
        RecordSink toCore = new RecordSink() {
            @Override
            public void accept(ConsumerRecord<byte[], byte[]> record, SettlementTicket ticket) {
                sink.accept(new KafkaDelivery(
                        queueOfTopic.get(record.topic()), record, ticket, KafkaJobs.this, settings.delays()));
            }

            @Override
            public void acceptAll(List<ConsumerRecord<byte[], byte[]>> records, List<SettlementTicket> tickets) {
                List<KafkaDelivery> deliveries = new ArrayList<>(records.size());
                for (int i = 0; i < records.size(); i++) {
                    ConsumerRecord<byte[], byte[]> record = records.get(i);
                    deliveries.add(new KafkaDelivery(
                            queueOfTopic.get(record.topic()),
                            record,
                            tickets.get(i),
                            KafkaJobs.this,
                            settings.delays()));
                }
                sink.acceptAll(deliveries); // one hand-off per turn of the poll loop
            }
        };
        KafkaPollLoop loop = new KafkaPollLoop(
                "backstage-kafka-jobs-" + settings.consumerId(),
                consumer,
                topics,
                Room.of(settings.flow()),
                0,
                toCore,
                kafka);
        loop.start();
        return new JobConsumer() {
            @Override
            public void stopFetching() {
                loop.stopFetching();
            }

            @Override
            public void close() {
                loop.close();
            }

            @Override
            public Optional<String> failure() {
                return loop.failure();
            }
        };
    }

    /** This machine's host name as the default consumer id spells it ({@code <host>-<pid>}). */
    private static String hostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "worker";
        }
    }

    /** The seed's default queues; on Kafka they are read side by side (no priority between topics). */
    @Override
    public List<String> defaultQueues() {
        return List.of("urgent", "default", "low");
    }

    @Override
    public boolean retryNeedsDelays() {
        return true;
    }
}
