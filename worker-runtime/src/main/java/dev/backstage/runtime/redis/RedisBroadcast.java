package dev.backstage.runtime.redis;

import dev.backstage.runtime.spi.BroadcastCapability;
import dev.backstage.runtime.spi.TopicConsumer;
import dev.backstage.runtime.spi.TopicSink;
import io.lettuce.core.Consumer;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.XAddArgs;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Broadcast on Redis, the seed's format (docs/wire-format.md): stream {@code {p}:broadcast}, entries with the job's
 * three fields {@code taskName}, {@code payload} (JSON text), {@code enqueuedAt} (ms), so a seed
 * {@code Broadcast.send} / {@code Client.Broadcast} reaches a Java worker and the reverse. Each worker reads in
 * its own group {@code broadcast-{consumerId}} as consumer {@code consumerId}, and acks each entry once its
 * handler settled it.
 *
 * <p>Two choices differ from seed master, neither visible to a seed reader: a new group starts at {@code $} (the
 * end, as the seed's provider version does by default), not at {@code 0} (master replays the whole stream to
 * every new worker); and the stream is trimmed approximately to {@value #MAX_LENGTH} entries (master never trims).
 * An existing group (a worker restarted under the same consumer id) resumes where it stopped, and the entries its
 * previous run read but never settled (a crash, a shutdown past its grace) are handed out again first.
 *
 * <p>Cleanup as the seed does it: when a listener starts and every {@link #DEFAULT_CLEANUP_INTERVAL}, each other
 * {@code broadcast-*} group whose consumers have all been idle for {@link #DEFAULT_STALE_AFTER} (a dead worker's)
 * is destroyed, atomically, in one script; a group with no consumer at all only when two passes in a row find it
 * so while newer entries wait for it (see {@link Cleanup}). A live listener's consumer is never idle longer than one blocking read.
 */
final class RedisBroadcast implements BroadcastCapability {
    private static final Logger log = LoggerFactory.getLogger(RedisBroadcast.class);
    static final String GROUP_PREFIX = "broadcast-";
    static final long MAX_LENGTH = 10_000;
    static final Duration DEFAULT_STALE_AFTER = Duration.ofHours(1);
    static final Duration DEFAULT_CLEANUP_INTERVAL = Duration.ofMinutes(10);
    /** The prefix seed master's listeners (TS 1.1.2, Go 1.0.3) are fixed to. */
    static final String SEED_PREFIX = "backstage";

    private final RedisProvider provider;
    private final Duration staleAfter;
    private final Duration cleanupInterval;

    RedisBroadcast(RedisProvider provider) {
        this(provider, DEFAULT_STALE_AFTER, DEFAULT_CLEANUP_INTERVAL);
    }

    RedisBroadcast(RedisProvider provider, Duration staleAfter, Duration cleanupInterval) {
        this.provider = provider;
        this.staleAfter = staleAfter;
        this.cleanupInterval = cleanupInterval;
    }

    @Override
    public String backend() {
        return "redis";
    }

    @Override
    public String send(String taskName, String payloadJson) {
        return provider.sync()
                .xadd(
                        provider.keys().broadcast(),
                        XAddArgs.Builder.maxlen(MAX_LENGTH).approximateTrimming(),
                        "taskName",
                        taskName,
                        "payload",
                        payloadJson,
                        "enqueuedAt",
                        Long.toString(System.currentTimeMillis()));
    }

    @Override
    public TopicConsumer listen(String consumerId, TopicSink sink) {
        String stream = provider.keys().broadcast();
        String group = GROUP_PREFIX + consumerId;
        if (!SEED_PREFIX.equals(provider.keys().prefix())) {
            log.info(
                    "broadcasts use stream {}: seed master listeners (TS 1.1.2, Go 1.0.3) read only {}:broadcast",
                    stream,
                    SEED_PREFIX);
        }
        Runnable join = () -> provider.sync()
                .eval(RedisScripts.BROADCAST_JOIN, ScriptOutputType.STATUS, new String[] {stream}, group, consumerId);
        join.run();
        Cleanup cleanup = new Cleanup(group);
        return new RedisGroupReader(
                        provider,
                        "broadcast",
                        stream,
                        Consumer.from(group, consumerId),
                        sink,
                        new RedisGroupReader.Shape(
                                body -> body.get("taskName"), "enqueuedAt", RedisBroadcast::malformed, "null"),
                        join,
                        new RedisGroupReader.Housekeeping(cleanupInterval, cleanup::pass),
                        null)
                .start();
    }

    /**
     * One listener's cleanup passes. A group without any consumer may be a live seed listener that has read nothing
     * yet (Redis creates a consumer only when a read returns entries): it is destroyed only when two passes in a
     * row, one {@code cleanupInterval} apart, find it without a consumer while newer entries wait for it.
     */
    final class Cleanup {
        private final String ownGroup;
        private List<String> unread = List.of();

        Cleanup(String ownGroup) {
            this.ownGroup = ownGroup;
        }

        /** Destroys other workers' stale broadcast groups; returns their names. */
        @SuppressWarnings("unchecked")
        List<String> pass() {
            List<String> args =
                    new java.util.ArrayList<>(List.of(ownGroup, Long.toString(staleAfter.toMillis()), GROUP_PREFIX));
            args.addAll(unread);
            List<Object> result = provider.sync()
                    .eval(
                            RedisScripts.BROADCAST_CLEANUP,
                            ScriptOutputType.MULTI,
                            new String[] {provider.keys().broadcast()},
                            args.toArray(String[]::new));
            List<String> destroyed = (List<String>) result.get(0);
            unread = List.copyOf((List<String>) result.get(1));
            if (!destroyed.isEmpty()) {
                log.info(
                        "destroyed {} stale broadcast group(s) of workers gone for {} s or more: {}",
                        destroyed.size(),
                        staleAfter.toSeconds(),
                        destroyed);
            }
            return destroyed;
        }
    }

    /** A seed reader skips an entry without a task name, or with the {@code _init} guard field (docs/wire-format.md). */
    private static Optional<String> malformed(java.util.Map<String, String> body) {
        if (body.containsKey("_init")) {
            return Optional.of("entry carries an _init field (never a broadcast)");
        }
        String task = body.get("taskName");
        return task == null || task.isBlank() ? Optional.of("entry has no taskName") : Optional.empty();
    }
}
