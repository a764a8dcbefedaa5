package dev.backstage.runtime.api;

import dev.backstage.runtime.spi.Backoff;
import dev.backstage.runtime.spi.BrokerNames;
import dev.backstage.runtime.spi.ConfigurationException;
import dev.backstage.runtime.spi.JobMeta;
import java.time.Duration;

/**
 * Options for {@code enqueue}/{@code schedule}. A dedupe key needs the dedupe capability and a delay
 * needs the delays capability; each fails explicitly when missing.
 */
public record EnqueueOptions(
        String queue,
        Duration delay,
        String dedupeKey,
        Duration dedupeTtl,
        Integer attempts,
        Backoff backoff,
        Duration timeout) {
    public static final String DEFAULT_QUEUE = "default";
    public static final Duration DEFAULT_DEDUPE_TTL = Duration.ofHours(1);
    /** The queue name broadcasts would collide with ({@code {p}:broadcast}, {@code {p}.broadcast}). */
    static final String RESERVED_BROADCAST = "broadcast";
    /** Longest delay: ten years (a due time in epoch milliseconds that every broker stores exactly). */
    public static final Duration MAX_DELAY = Duration.ofDays(3650);

    public EnqueueOptions {
        queue = queue == null || queue.isBlank() ? DEFAULT_QUEUE : queue;
        delay = delay == null ? Duration.ZERO : delay;
        if (delay.isNegative()) {
            throw new ConfigurationException("delay must not be negative, got " + delay);
        }
        if (delay.compareTo(MAX_DELAY) > 0) {
            throw new ConfigurationException("delay must be at most " + MAX_DELAY.toDays() + " days (10 years), got "
                    + delay.toDays() + " days");
        }
        if (queue.equals(RESERVED_BROADCAST)) {
            throw new ConfigurationException("queue name 'broadcast' is reserved: broadcasts use the stream/topic"
                    + " {prefix}:broadcast (Redis) and {prefix}.broadcast (Kafka); choose another queue name");
        }
        BrokerNames.requireQueue("queue name", queue);
        dedupeTtl = dedupeTtl == null ? DEFAULT_DEDUPE_TTL : dedupeTtl;
    }

    public static EnqueueOptions defaults() {
        return new EnqueueOptions(null, null, null, null, null, null, null);
    }

    public static EnqueueOptions onQueue(String queue) {
        return defaults().queue(queue);
    }

    public EnqueueOptions queue(String value) {
        return new EnqueueOptions(value, delay, dedupeKey, dedupeTtl, attempts, backoff, timeout);
    }

    public EnqueueOptions delay(Duration value) {
        return new EnqueueOptions(queue, value, dedupeKey, dedupeTtl, attempts, backoff, timeout);
    }

    public EnqueueOptions dedupe(String key, Duration ttl) {
        return new EnqueueOptions(queue, delay, key, ttl, attempts, backoff, timeout);
    }

    public EnqueueOptions attempts(int value) {
        return new EnqueueOptions(queue, delay, dedupeKey, dedupeTtl, value, backoff, timeout);
    }

    public EnqueueOptions backoff(Backoff value) {
        return new EnqueueOptions(queue, delay, dedupeKey, dedupeTtl, attempts, value, timeout);
    }

    public EnqueueOptions timeout(Duration value) {
        return new EnqueueOptions(queue, delay, dedupeKey, dedupeTtl, attempts, backoff, value);
    }

    public JobMeta meta() {
        return new JobMeta(attempts, backoff, timeout == null ? null : timeout.toMillis());
    }
}
