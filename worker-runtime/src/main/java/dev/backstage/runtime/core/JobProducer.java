package dev.backstage.runtime.core;

import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.EnqueueResult;
import dev.backstage.runtime.api.Producer;
import dev.backstage.runtime.spi.OutgoingJob;
import dev.backstage.runtime.spi.Provider;
import java.time.Instant;

/**
 * Enqueue and schedule: dedupe first (when a key is given), then publish now or hand to the delays
 * capability. Each option that needs a capability fails explicitly when it is missing.
 */
public final class JobProducer implements Producer {
    private final CapabilitySet capabilities;
    private final PayloadCodec codec;

    public JobProducer(CapabilitySet capabilities, PayloadCodec codec) {
        this.capabilities = capabilities;
        this.codec = codec;
    }

    /** A producer on {@code provider}'s own capabilities, with the default payload codec. */
    public static Producer forProvider(Provider provider) {
        return new JobProducer(new CapabilitySet(provider, null, null, null), PayloadCodec.defaults());
    }

    @Override
    public EnqueueResult enqueue(String taskName, Object payload, EnqueueOptions options) {
        String json = payload instanceof RawJson raw ? raw.json() : codec.encode(payload);
        return enqueueJson(taskName, json, options);
    }

    @Override
    public EnqueueResult enqueueJson(String taskName, String payloadJson, EnqueueOptions options) {
        if (taskName == null || taskName.isBlank()) {
            throw new IllegalArgumentException("taskName must not be blank");
        }
        EnqueueOptions opts = options == null ? EnqueueOptions.defaults() : options;
        boolean delayed = !opts.delay().isZero();
        // Resolve every needed capability before any side effect, so a missing one costs nothing.
        var delays = delayed ? capabilities.delays() : null;
        if (opts.dedupeKey() != null && !capabilities.dedupe().tryClaim(opts.dedupeKey(), opts.dedupeTtl())) {
            return EnqueueResult.skippedAsDuplicate();
        }
        OutgoingJob job = OutgoingJob.fresh(opts.queue(), taskName, payloadJson, opts.meta());
        if (delayed) {
            Instant runAt = Instant.ofEpochMilli(job.enqueuedAtMs()).plus(opts.delay());
            return new EnqueueResult(delays.schedule(job, runAt), false, runAt);
        }
        return new EnqueueResult(capabilities.jobs().publish(job), false, Instant.ofEpochMilli(job.enqueuedAtMs()));
    }

    /** A payload that is already JSON text, published byte for byte. */
    public record RawJson(String json) {}
}
