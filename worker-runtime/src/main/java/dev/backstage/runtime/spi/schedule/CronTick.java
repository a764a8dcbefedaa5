package dev.backstage.runtime.spi.schedule;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.backstage.runtime.spi.ClaimingPublisher;
import dev.backstage.runtime.spi.DedupeCapability;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.JobsCapability;
import dev.backstage.runtime.spi.OutgoingJob;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * Fires one tick of a schedule exactly once across any number of schedulers (Java runtimes, operators): claim the
 * per-tick dedupe key {@code cron:{schedule}:{tickEpochMs}} (on Redis {@code {p}:dedupe:cron:…}, docs/wire-format.md), and
 * only the claimer publishes the job. The job is what the TS seed scheduler writes: {@code taskName},
 * {@code enqueuedAt} and {@code payload = {"taskName":…,"args":…}}, so seed workers run it unchanged.
 *
 * <p>The claim outlives every attempt another scheduler can make on the same tick (the starting deadline, plus an
 * hour for clock skew and slow turns). A publish that fails after the claim gives the claim back
 * ({@link DedupeCapability#release}) and throws {@link NotPublishedException}: the tick stays due and is tried
 * again, by this scheduler or another, while within its deadline (a publish that reached the broker but reported
 * a failure can then run twice — at-least-once). Only when the claim cannot be given back (a backend without
 * release, or the release failed too) is the tick reported as {@link ClaimedNotPublishedException} and not fired
 * again. A failed claim (the dedupe backend is down) propagates as it is, and the tick stays due. When the dedupe
 * backend is the jobs' own broker (Redis), claim and job are one atomic step instead ({@link ClaimingPublisher}): a
 * retry never enqueues a tick twice.
 */
public final class CronTick {
    /** How long a claim outlives the starting deadline (the whole claim when there is no deadline). */
    public static final Duration CLAIM_MARGIN = Duration.ofHours(1);

    private static final ObjectMapper JSON = new ObjectMapper();

    private CronTick() {}

    /** Fired: the broker's id of the job. Already fired elsewhere: the claim was taken. */
    public record Outcome(Instant tick, String jobId, boolean alreadyFired) {}

    public static String dedupeKey(Schedule schedule, Instant tick) {
        return "cron:" + schedule.name() + ":" + tick.toEpochMilli();
    }

    public static Duration claimTtl(Schedule schedule) {
        return schedule.startingDeadline() == null
                ? CLAIM_MARGIN
                : schedule.startingDeadline().plus(CLAIM_MARGIN);
    }

    /** The seeds' cron envelope: {@code {"taskName":…,"args":…}} (the TS serializer's output for plain JSON args). */
    public static String payloadJson(Schedule schedule) {
        try {
            return "{\"taskName\":" + JSON.writeValueAsString(schedule.task()) + ",\"args\":" + schedule.argsJson()
                    + "}";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a task name always encodes as a JSON string", e);
        }
    }

    /** The job a tick enqueues, stamped with {@code clock}'s time as {@code enqueuedAt}. */
    public static OutgoingJob job(Schedule schedule, Clock clock) {
        return new OutgoingJob(
                schedule.queue(), schedule.task(), payloadJson(schedule), clock.millis(), JobMeta.NONE, 1, null);
    }

    /**
     * Claims {@code tick} and, when this caller won the claim, publishes its job. Broker errors propagate. When the
     * dedupe backend and the jobs are one broker ({@link DedupeCapability#claimingPublisher}), claim and job are one
     * atomic step: a failure leaves neither (or both, when only the replica wait failed) and the tick stays due; the
     * retry then finds the claim and reports the tick already fired, so it is enqueued once.
     */
    public static Outcome fire(
            Schedule schedule, Instant tick, DedupeCapability dedupe, JobsCapability jobs, Clock clock) {
        java.util.Optional<ClaimingPublisher> atomic = dedupe.claimingPublisher(jobs);
        if (atomic.isPresent()) {
            ClaimingPublisher.Result result =
                    atomic.get().claimAndPublish(dedupeKey(schedule, tick), claimTtl(schedule), job(schedule, clock));
            return new Outcome(tick, result.jobId(), !result.claimed());
        }
        if (!dedupe.tryClaim(dedupeKey(schedule, tick), claimTtl(schedule))) {
            return new Outcome(tick, null, true);
        }
        try {
            return new Outcome(tick, jobs.publish(job(schedule, clock)), false);
        } catch (RuntimeException e) {
            boolean released;
            try {
                released = dedupe.release(dedupeKey(schedule, tick));
            } catch (RuntimeException releaseFailure) {
                e.addSuppressed(releaseFailure);
                released = false;
            }
            if (released) {
                throw new NotPublishedException(schedule, tick, e);
            }
            throw new ClaimedNotPublishedException(schedule, tick, e);
        }
    }

    /** The tick's job could not be enqueued and its claim was given back: the tick stays due. */
    public static final class NotPublishedException extends RuntimeException {
        NotPublishedException(Schedule schedule, Instant tick, RuntimeException cause) {
            super(
                    "tick " + tick + " of schedule '" + schedule.name() + "' could not be enqueued on queue '"
                            + schedule.queue() + "' (the claim was given back; tried again while within the deadline): "
                            + cause.getMessage(),
                    cause);
        }
    }

    /** The tick was claimed here but its job could not be published: it is not fired again (the claim holds). */
    public static final class ClaimedNotPublishedException extends RuntimeException {
        ClaimedNotPublishedException(Schedule schedule, Instant tick, RuntimeException cause) {
            super(
                    "tick " + tick + " of schedule '" + schedule.name() + "' was claimed but its job could not be"
                            + " enqueued on queue '" + schedule.queue() + "': " + cause.getMessage(),
                    cause);
        }
    }
}
