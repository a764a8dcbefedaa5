package dev.backstage.runtime.kafka;

import dev.backstage.runtime.api.Capability;
import dev.backstage.runtime.api.CapabilityMissingException;
import dev.backstage.runtime.core.JsonTokens;
import dev.backstage.runtime.spi.DelaysCapability;
import dev.backstage.runtime.spi.Delivery;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.OutgoingJob;
import dev.backstage.runtime.spi.Payload;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * One Kafka record as a job delivery. The value is decoded on first use, on the handler thread, so the
 * poll thread only moves records.
 *
 * <p>Mechanics only (the core decides which one happens): ack marks the offset settled; retry stores a
 * copy with {@code deliveryCount + 1} (through the delays capability, or straight onto the topic for a
 * zero delay) and then marks the offset settled; dead-letter produces to {@code {p}.{q}.dead-letter}
 * and then marks it settled. When storing the copy fails, the record is handed out again after a pause
 * instead, as a broker redelivers an unacknowledged message.
 */
final class KafkaDelivery implements Delivery {
    private final String queue;
    private final ConsumerRecord<byte[], byte[]> record;
    private final SettlementTicket ticket;
    private final KafkaJobs jobs;
    private final Optional<DelaysCapability> delays;
    private volatile JobValueDecoder.Decoded decoded;

    KafkaDelivery(
            String queue,
            ConsumerRecord<byte[], byte[]> record,
            SettlementTicket ticket,
            KafkaJobs jobs,
            Optional<DelaysCapability> delays) {
        this.queue = queue;
        this.record = record;
        this.ticket = ticket;
        this.jobs = jobs;
        this.delays = delays;
    }

    private JobValueDecoder.Decoded decoded() {
        JobValueDecoder.Decoded d = decoded;
        if (d == null) {
            d = jobs.decoder().decode(record.value());
            decoded = d; // a racing second decode gives an equal result
        }
        return d;
    }

    /**
     * The payload in the core's parsed form: nothing is read until the core asks, first on the handler thread, so
     * the one read of the record can bind the payload in its pass.
     */
    @Override
    public Payload payload() {
        return new Tokens();
    }

    /** This record's payload as the one streaming pass over the value reads it (docs/architecture.md). */
    private final class Tokens extends JsonTokens {
        /** The first read of the record, on the handler thread: the payload is bound in the same pass when it can be. */
        @Override
        protected Object readBinding(JsonTokens.Binder binder) {
            if (decoded != null) {
                return JsonTokens.NOT_BOUND;
            }
            JobValueDecoder.Decoded d = jobs.decoder().decode(record.value(), binder);
            decoded = d;
            return d instanceof JobValueDecoder.Valid valid ? valid.boundPayload() : JsonTokens.NOT_BOUND;
        }

        @Override
        protected com.fasterxml.jackson.core.JsonParser tokens() {
            JobValueDecoder.Valid job = valid();
            return job == null ? null : job.payloadTokens();
        }

        @Override
        public String json() {
            return payloadJson();
        }
    }

    private JobValue job() {
        return decoded() instanceof JobValueDecoder.Valid valid ? valid.job() : null;
    }

    private JobValueDecoder.Valid valid() {
        return decoded() instanceof JobValueDecoder.Valid valid ? valid : null;
    }

    @Override
    public String queue() {
        return queue;
    }

    @Override
    public String taskName() {
        JobValueDecoder.Valid job = valid();
        return job == null ? "" : job.taskName();
    }

    @Override
    public String payloadJson() {
        JobValue job = job();
        return job == null ? null : job.payloadJson();
    }

    @Override
    public long enqueuedAtMs() {
        JobValueDecoder.Valid job = valid();
        return job == null || job.enqueuedAtMs() == null ? record.timestamp() : job.enqueuedAtMs();
    }

    @Override
    public JobMeta meta() {
        JobValueDecoder.Valid job = valid();
        return job == null ? JobMeta.NONE : job.meta();
    }

    @Override
    public int deliveryCount() {
        JobValueDecoder.Valid job = valid();
        return job == null ? 1 : job.deliveryCount();
    }

    /** The value's {@code jobId}; a value without one (a seed producer) is known by this first delivery's id. */
    @Override
    public String jobId() {
        JobValueDecoder.Valid job = valid();
        return job != null && job.jobId() != null ? job.jobId() : deliveryId();
    }

    @Override
    public String deliveryId() {
        return record.topic() + ":" + record.partition() + ":" + record.offset();
    }

    @Override
    public Optional<String> malformedReason() {
        return decoded() instanceof JobValueDecoder.Malformed m ? Optional.of(m.reason()) : Optional.empty();
    }

    /**
     * Completes as soon as the poll loop has the settlement: the core frees the slot once an ack is queued and
     * only logs a failed stage, while the commit's own outcome (and a revocation before it) is logged by the
     * loop per partition. So no per-record future waits for the commit on this path.
     */
    @Override
    public CompletionStage<Void> ack() {
        return ticket.settle(false);
    }

    @Override
    public CompletionStage<Void> retry(Duration delay, String error) {
        JobValue job = job();
        if (job == null) {
            return deadLetter(error); // nothing to copy; the core never retries malformed records anyway
        }
        OutgoingJob copy = job.toOutgoing(queue, enqueuedAtMs(), jobId()).retryCopy(deliveryCount() + 1, jobId());
        if (delay.isZero() || delay.isNegative()) {
            return jobs.send(jobs.names().jobTopic(queue), jobs.encoder().encode(copy, jobId()))
                    .thenCompose(metadata -> ticket.settle(false))
                    .whenComplete((ok, failure) -> redeliverOn(failure));
        }
        try {
            DelaysCapability store = delays.orElseThrow(
                    () -> new CapabilityMissingException("kafka", Capability.DELAYS, KafkaJobs.DELAYS_HINT));
            store.schedule(copy, Instant.now().plus(delay));
        } catch (RuntimeException e) {
            ticket.redeliverLater();
            return CompletableFuture.failedFuture(e);
        }
        return ticket.settle(false);
    }

    @Override
    public CompletionStage<Void> deadLetter(String error) {
        long now = System.currentTimeMillis();
        byte[] value;
        try {
            JobValue job = job();
            value = job != null
                    ? jobs.deadLetterValues().encodeDeadLetter(job, jobId(), error, deliveryId(), deliveryCount(), now)
                    : jobs.deadLetterValues().encodeMalformedDeadLetter(rawText(), error, deliveryId(), now);
            jobs.clients().ensureDeadLetterTopic(jobs.names().deadLetterTopic(queue));
        } catch (RuntimeException e) {
            ticket.redeliverLater();
            return CompletableFuture.failedFuture(e);
        }
        return jobs.send(jobs.names().deadLetterTopic(queue), value)
                .thenCompose(metadata -> ticket.settle(false))
                .whenComplete((ok, failure) -> redeliverOn(failure));
    }

    private void redeliverOn(Throwable failure) {
        if (failure != null) {
            ticket.redeliverLater(); // ignored when the ticket was already used
        }
    }

    private String rawText() {
        return record.value() == null ? "" : new String(record.value(), StandardCharsets.UTF_8);
    }

    @Override
    public void abandon() {
        ticket.abandon();
    }
}
