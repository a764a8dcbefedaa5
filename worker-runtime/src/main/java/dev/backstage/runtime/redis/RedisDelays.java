package dev.backstage.runtime.redis;

import dev.backstage.runtime.core.NamedThreads;
import dev.backstage.runtime.spi.DelayedBacklog;
import dev.backstage.runtime.spi.DelaysCapability;
import dev.backstage.runtime.spi.JobsCapability;
import dev.backstage.runtime.spi.Liveness;
import dev.backstage.runtime.spi.OutgoingJob;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScoredValueScanCursor;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delays in the sorted set {@code {p}:scheduled} (docs/wire-format.md).
 *
 * <p>Two promotion modes: under Redis jobs, an atomic script moves due members straight onto their
 * streams (the seed's behaviour, so seed workers and Java workers can promote each other's jobs). Under a
 * foreign jobs provider (Kafka, RabbitMQ), members are claimed into {@code {p}:scheduled:claimed},
 * published through that provider, then removed; a claim abandoned for 30 s (a worker died between claim
 * and publish) is claimed again, so promotion is at-least-once and nothing is lost.
 *
 * <p>Use {@link #connect(String)} to supply Redis delays to another jobs provider; the worker closes the
 * store it was given.
 */
public final class RedisDelays implements DelaysCapability, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RedisDelays.class);
    static final Duration ABANDONED_CLAIM_AGE = Duration.ofSeconds(30);

    private final RedisProvider provider;
    private final RedisProvider owned;

    RedisDelays(RedisProvider provider, RedisProvider owned) {
        this.provider = provider;
        this.owned = owned;
    }

    /** A delays store on its own connection, e.g. for Kafka or RabbitMQ jobs. */
    public static RedisDelays connect(String uri) {
        return connect(RedisSettings.of(uri));
    }

    public static RedisDelays connect(RedisSettings settings) {
        RedisProvider provider = RedisProvider.connect(settings);
        return new RedisDelays(provider, provider);
    }

    @Override
    public String backend() {
        return "redis";
    }

    @Override
    public String schedule(OutgoingJob job, Instant runAt) {
        long at = runAt.toEpochMilli();
        RedisKeys keys = provider.keys();
        String set = keys.scheduled(job.queue());
        if (keys.queueTags()) {
            provider.sync().sadd(keys.delayedQueues(), job.queue()); // first: the promoter never misses the set
        }
        provider.sync().zadd(set, at, DelayMember.encode(job, keys));
        provider.awaitReplicas(set);
        return "scheduled:" + at;
    }

    /**
     * Counts the members of {@code {p}:scheduled} per queue with ZSCAN (the set holds every queue's delayed
     * jobs, so each member's {@code streamKey} is read); the next due time is the lowest score of a queue.
     */
    @Override
    public Optional<List<DelayedBacklog>> delayed(List<String> queues) {
        if (provider.keys().queueTags()) {
            List<DelayedBacklog> result = new ArrayList<>();
            for (String queue : queues) {
                String set = provider.keys().scheduled(queue);
                long count = provider.sync().zcard(set);
                List<ScoredValue<String>> first = provider.sync().zrangeWithScores(set, 0, 0);
                result.add(new DelayedBacklog(
                        queue,
                        count,
                        first.isEmpty()
                                ? null
                                : Instant.ofEpochMilli((long) first.get(0).getScore()),
                        null));
            }
            return Optional.of(result);
        }
        Map<String, long[]> byQueue = new HashMap<>(); // queue -> {count, lowest score}
        for (String queue : queues) {
            byQueue.put(queue, new long[] {0, Long.MAX_VALUE});
        }
        ScoredValueScanCursor<String> cursor =
                provider.sync().zscan(provider.keys().scheduled(), ScanArgs.Builder.limit(500));
        while (true) {
            for (ScoredValue<String> member : cursor.getValues()) {
                OutgoingJob job = DelayMember.decode(member.getValue(), provider.keys());
                long[] figures = job == null ? null : byQueue.get(job.queue());
                if (figures != null) {
                    figures[0]++;
                    figures[1] = Math.min(figures[1], (long) member.getScore());
                }
            }
            if (cursor.isFinished()) {
                break;
            }
            cursor = provider.sync().zscan(provider.keys().scheduled(), cursor, ScanArgs.Builder.limit(500));
        }
        List<DelayedBacklog> result = new ArrayList<>();
        for (String queue : queues) {
            long[] figures = byQueue.get(queue);
            result.add(new DelayedBacklog(
                    queue, figures[0], figures[0] == 0 ? null : Instant.ofEpochMilli(figures[1]), null));
        }
        return Optional.of(result);
    }

    @Override
    public AutoCloseable startPromotion(JobsCapability target) {
        boolean sameRedis = target instanceof RedisJobs jobs && jobs.provider() == provider;
        ScheduledExecutorService loop =
                Executors.newSingleThreadScheduledExecutor(new NamedThreads("backstage-redis-promoter", true));
        long every = provider.settings().promotionInterval().toMillis();
        Runnable tick = sameRedis ? this::promoteOntoStreams : () -> promoteInto(target);
        AtomicReference<String> failure = new AtomicReference<>();
        loop.scheduleWithFixedDelay(
                () -> {
                    try {
                        tick.run();
                    } catch (RuntimeException e) {
                        log.warn("delayed-job promotion failed: {}; next try in {} ms", e.toString(), every);
                    } catch (Error e) {
                        failure.set("redis delayed-job promoter stopped: " + e);
                        log.error("delayed-job promotion failed; the promoter stops", e);
                        throw e;
                    }
                },
                0,
                every,
                TimeUnit.MILLISECONDS);
        return new Promotion(loop, failure);
    }

    /** The running promoter: closed with the worker, and a {@link Liveness} for its health. */
    private record Promotion(ScheduledExecutorService loop, AtomicReference<String> failed)
            implements AutoCloseable, Liveness {
        @Override
        public void close() {
            loop.shutdownNow();
        }

        @Override
        public Optional<String> failure() {
            return Optional.ofNullable(failed.get());
        }
    }

    /** The delayed-job sets and their claim sets: the one shared pair, or with per-queue tags each queue's. */
    private List<String[]> sets() {
        RedisKeys keys = provider.keys();
        if (!keys.queueTags()) {
            return List.<String[]>of(new String[] {keys.scheduled(), keys.scheduledClaimed()});
        }
        List<String[]> out = new ArrayList<>();
        for (String queue : provider.sync().smembers(keys.delayedQueues())) {
            out.add(new String[] {keys.scheduled(queue), keys.scheduledClaimed(queue)});
        }
        return out;
    }

    /** One pass of the atomic promotion script over every set; returns how many members moved. */
    long promoteOntoStreams() {
        long total = 0;
        for (String[] set : sets()) {
            total += promoteOntoStreams(set[0]);
        }
        return total;
    }

    /**
     * Promotes the due members of one set. In a cluster each queue's set shares its stream's hash tag, so the
     * script's keys (the set, the stream the member names) are in one slot.
     */
    private long promoteOntoStreams(String set) {
        long total = 0;
        while (true) {
            List<Long> result = provider.sync()
                    .eval(
                            RedisScripts.PROMOTE,
                            ScriptOutputType.MULTI,
                            new String[] {set},
                            Long.toString(System.currentTimeMillis()),
                            provider.keys().prefix(),
                            Integer.toString(provider.settings().promotionBatch()));
            long promoted = result.get(0);
            long skipped = result.get(1);
            if (skipped > 0) {
                log.warn(
                        "{} delayed members in {} cannot be promoted (not valid job JSON); they stay in place",
                        skipped,
                        set);
            }
            total += promoted;
            if (promoted + skipped < provider.settings().promotionBatch() || promoted == 0) {
                return total;
            }
        }
    }

    /** Claim → publish → remove, for a foreign jobs provider. */
    long promoteInto(JobsCapability target) {
        long published = 0;
        for (String[] set : sets()) {
            published += promoteInto(target, set[0], set[1]);
        }
        return published;
    }

    private long promoteInto(JobsCapability target, String scheduled, String claimed) {
        long now = System.currentTimeMillis();
        List<String> members = provider.sync()
                .eval(
                        RedisScripts.CLAIM_DUE,
                        ScriptOutputType.MULTI,
                        new String[] {scheduled, claimed},
                        Long.toString(now),
                        Integer.toString(provider.settings().promotionBatch()),
                        Long.toString(now - ABANDONED_CLAIM_AGE.toMillis()));
        long published = 0;
        for (String member : members) {
            OutgoingJob job = DelayMember.decode(member, provider.keys());
            if (job == null || job.taskName().isEmpty()) {
                log.error("delayed member is not a job; moved to {}:invalid: {}", scheduled, member);
                provider.sync().zadd(scheduled + ":invalid", now, member);
                provider.sync().zrem(claimed, member);
                continue;
            }
            try {
                target.publish(job); // a broker failure throws: the claim stays and is retried after 30 s
            } catch (IllegalArgumentException rejected) {
                // The jobs provider refuses this job itself (e.g. a payload that is not JSON): retrying cannot help.
                log.error(
                        "delayed job rejected by {}; moved to {}:invalid: {}",
                        target.getClass().getSimpleName(),
                        scheduled,
                        rejected.getMessage());
                provider.sync().zadd(scheduled + ":invalid", now, member);
                provider.sync().zrem(claimed, member);
                continue;
            }
            provider.sync().zrem(claimed, member);
            published++;
        }
        return published;
    }

    @Override
    public void close() {
        if (owned != null) {
            owned.close();
        }
    }
}
