package dev.backstage.runtime.redis;

import dev.backstage.runtime.spi.Delivery;
import dev.backstage.runtime.spi.JobMeta;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * One stream entry delivered to a {@link RedisConsumer} and settled through its {@link RedisSettler}. The job id
 * is the entry id — the same across reclaims and retries, since a Redis retry leaves the entry pending instead of
 * copying it — unless the entry carries a {@code jobId} field: a redriven dead letter does, so the idempotency
 * key survives a redrive.
 */
final class RedisDelivery implements Delivery {
    private final RedisSettler settler;
    private final String stream;
    private final String queue;
    private final String id;
    private final Map<String, String> body;
    private final int deliveryCount;
    private final JobMeta meta;

    RedisDelivery(
            RedisSettler settler, String stream, String queue, String id, Map<String, String> body, int deliveryCount) {
        this.settler = settler;
        this.stream = stream;
        this.queue = queue;
        this.id = id;
        this.body = body;
        this.deliveryCount = deliveryCount;
        this.meta = JobEntryCodec.meta(body);
    }

    String stream() {
        return stream;
    }

    Map<String, String> body() {
        return body;
    }

    @Override
    public String queue() {
        return queue;
    }

    @Override
    public String taskName() {
        return body.getOrDefault("taskName", "");
    }

    @Override
    public String payloadJson() {
        return body.get("payload");
    }

    @Override
    public long enqueuedAtMs() {
        return JobEntryCodec.enqueuedAt(body);
    }

    @Override
    public JobMeta meta() {
        return meta;
    }

    @Override
    public int deliveryCount() {
        return deliveryCount;
    }

    @Override
    public String jobId() {
        String carried = body.get(JOB_ID_FIELD);
        return carried == null || carried.isEmpty() ? id : carried;
    }

    static final String JOB_ID_FIELD = "jobId";

    @Override
    public String deliveryId() {
        return id;
    }

    @Override
    public Optional<String> malformedReason() {
        return Optional.ofNullable(JobEntryCodec.malformedReason(body));
    }

    @Override
    public CompletionStage<Void> ack() {
        return settler.ack(this);
    }

    @Override
    public CompletionStage<Void> retry(Duration delay, String error) {
        return settler.retry(this, delay, error);
    }

    @Override
    public CompletionStage<Void> deadLetter(String error) {
        return settler.deadLetter(this, error);
    }

    @Override
    public void abandon() {
        settler.abandon(this);
    }
}
